/**
 * The bench's child processes: every one is spawned through a `ChildSet`, which kills whatever is
 * still running at the end (also on error, on SIGINT/SIGTERM and at process exit). And what the
 * bench reads about a child from /proc: its RSS and its CPU time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** How much of a child's output is kept for error messages. */
const TAIL_CHARS = 4_000;

export interface Child {
  pid: number;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
  hasExited(): boolean;
  /** The last few KB of stdout and stderr together. */
  output(): string;
}

interface Tracked {
  proc: ChildProcess;
  child: Child;
}

export class ChildSet {
  private readonly live = new Map<number, Tracked>();
  private readonly onExit = (): void => this.killAllNow();
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.killAllNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  constructor() {
    process.on('exit', this.onExit);
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  /** Starts `command args` with exactly `env` (nothing inherited). Throws when it cannot start. */
  spawn(command: string, args: readonly string[], env: Record<string, string>): Child {
    const proc = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (proc.pid === undefined) throw new Error(`cannot start ${command}`);
    const pid = proc.pid;
    let tail = '';
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let done = false;
    const exited = new Promise<number | string>((resolve) => {
      proc.once('exit', (code, signal) => {
        done = true;
        this.live.delete(pid);
        resolve(code ?? signal ?? 'unknown');
      });
    });
    const child: Child = { pid, exited, hasExited: () => done, output: () => tail };
    this.live.set(pid, { proc, child });
    return child;
  }

  /** SIGKILL (nothing of the child's shutdown is measured) and wait for the exit. */
  async kill(child: Child): Promise<void> {
    const tracked = this.live.get(child.pid);
    if (tracked === undefined) return;
    tracked.proc.kill('SIGKILL');
    await child.exited;
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.live.values()].map((t) => this.kill(t.child)));
  }

  /** Kills every live child and stops watching the process's exit and signals. */
  async close(): Promise<void> {
    await this.killAll();
    process.off('exit', this.onExit);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  private killAllNow(): void {
    for (const { proc } of this.live.values()) proc.kill('SIGKILL');
  }
}

/** VmRSS of a process, in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU time of a process so far, in ms (Linux /proc); 0 once it is gone. */
export function cpuMs(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after "pid (comm) ": state is field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / ticksPerSecond();
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The minimal environment for a child: PATH and HOME, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME']) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  return { ...base, ...extra };
}
