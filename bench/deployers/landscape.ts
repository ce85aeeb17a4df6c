/**
 * The full embedded landscape (`node scripts/launch.mjs local/main.ts`) as a child process in a state
 * directory of its own: ApiServerSource, broker, activator, Redis and the real functions as
 * processes (and its own API server, unless `--kubeconfig` is among the arguments). It runs in a
 * process group of its own, so that the end (SIGTERM, then SIGKILL to the whole group, also on
 * error, SIGINT/SIGTERM and exit) leaves no function replica or redis-server behind. And the CPU
 * time of that group, from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTree } from '../proc.js';
import { childEnv, sleep } from '../runtime/children.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TAIL_CHARS = 4_000;

export interface LandscapeProcess {
  pid: number;
  stateDir: string;
  /** The last few KB of its stdout and stderr. */
  output(): string;
  /** User + system CPU of its process tree so far (replicas in their own groups and reaped children included), in ms. */
  cpuMs(): number;
  /** SIGTERM, up to `graceMs` (default 3 s) for a clean exit, then SIGKILL to the whole group; removes the state dir. */
  stop(graceMs?: number): Promise<void>;
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

/**
 * The CPU of a process tree: utime + stime + cutime + cstime of `root` and of every live process
 * whose parent chain leads to it. The activator starts each replica in a process group of its own
 * (`detached`), so a group's CPU would leave out the live replicas; a replica that exited and was
 * reaped is in its parent's cutime.
 */
export function treeCpuMs(root: number): number {
  const ticks = processTree(root).reduce((n, p) => n + p.cpu, 0);
  return (ticks * 1000) / ticksPerSecond();
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function waitForFile(
  file: string,
  proc: ChildProcess,
  timeoutMs: number,
  tail: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(
        `the landscape exited (${proc.exitCode ?? proc.signalCode}) before it was ready:\n${tail()}`,
      );
    if (Date.now() > deadline)
      throw new Error(`the landscape was not ready within ${timeoutMs} ms:\n${tail()}`);
    await sleep(100);
  }
}

function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** Starts the landscape (functions on, no shoot cluster) and waits until its control file exists. */
export async function startLandscapeProcess(
  readyTimeoutMs: number,
  /** More arguments; may put files into the state dir (removed with it). */
  more: (stateDir: string) => Promise<string[]> = () => Promise.resolve([]),
): Promise<LandscapeProcess> {
  const stateDir = await mkdtemp(join(tmpdir(), 'bench-deployers-landscape-'));
  const extraArgs = await more(stateDir);
  const args = [
    'scripts/launch.mjs',
    'local/main.ts',
    ...['--state-dir', stateDir, '--status-interval', '0', '--no-function-logs', '--no-default-clusters'],
    ...extraArgs,
  ];
  const proc = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (proc.pid === undefined) throw new Error('cannot start the landscape');
  const pid = proc.pid;
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const onExit = (): void => {
    killGroup(pid);
    rmSync(stateDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    onExit();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stop = async (graceMs = 3_000): Promise<void> => {
    try {
      proc.kill('SIGTERM');
    } catch {
      // gone
    }
    await Promise.race([exited(proc), sleep(graceMs)]);
    killGroup(pid);
    await exited(proc);
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    await waitForFile(join(stateDir, 'landscape.json'), proc, readyTimeoutMs, () => tail);
  } catch (e) {
    await stop(0);
    throw e;
  }
  return {
    pid,
    stateDir,
    output: () => tail,
    cpuMs: () => treeCpuMs(pid),
    stop,
  };
}
