/**
 * One replica: a Functions Framework process started from the function's `server.js` bundle with
 * PORT=0; it is ready when it prints its "serving" line (with the port it got). Requests are
 * forwarded over one keep-alive agent. Its stdout/stderr lines go to the log sink. `exited`
 * resolves when the process is gone, whatever the cause.
 *
 * The process runs in a process group of its own, as a container runs apart from the kubelet:
 * Ctrl-C in the terminal of `npm start` (SIGINT to the foreground process group) reaches the
 * landscape only, which stops the replicas in order (SIGTERM: the request in flight is finished)
 * after the sources and before Redis. So that a replica never outlives a landscape that was
 * killed outright, it has an IPC channel to the landscape and exits when that closes: the bundle's
 * `preload.cjs` (shared/serve/preload.ts, loaded with `--require` before the bundle, which also
 * gives it V8's code cache), or ORPHAN_GUARD for an entry without one. It runs with the V8 flags
 * of every replica (shared/serve/v8-flags.ts), which its code cache was written under. Upstream: the kubelet stops
 * a Pod's containers with SIGTERM and the grace period
 * (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, resolve } from 'node:path';
import { REPLICA_V8_FLAGS } from '../../shared/serve/v8-flags.js';
import { lineSplitter } from '../../shared/text/lines.js';

export type LogStream = 'stdout' | 'stderr';

/**
 * Loaded into a replica whose bundle has no `preload.cjs` (`node --import`): exits when the IPC
 * channel to the landscape closes (the landscape is gone), without keeping the replica alive by
 * itself. An ES module import: it brings Node's ESM loader into the process (≈ 60 ms of CPU,
 * 9 MB), which `preload.cjs` does not.
 */
export const ORPHAN_GUARD =
  'data:text/javascript,process.on("disconnect",()=>process.exit(1));process.channel?.unref();';

/** The node arguments before the entry: its `preload.cjs` when it has one, else ORPHAN_GUARD. */
export function preloadArgs(entry: string, hasFile: (path: string) => boolean = existsSync): string[] {
  // absolute: `--require` takes a bare relative path for a package name
  const preload = resolve(dirname(entry), 'preload.cjs');
  return hasFile(preload) ? ['--require', preload] : ['--import', ORPHAN_GUARD];
}
export type LineSink = (stream: LogStream, line: string) => void;

export interface ReplicaOptions {
  id: string;
  /** The bundle to run: `server.cjs` (with `preload.cjs` beside it) or a `server.js`. */
  entry: string;
  env: Record<string, string>;
  /** Extra node flags (e.g. `--enable-source-maps`). */
  nodeArgs?: readonly string[];
  onLine: LineSink;
  /** How long the process may take to listen (default 30 s). */
  startTimeoutMs?: number;
}

export interface ForwardRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

export interface ForwardResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The request did not get a response; `timedOut` when it ran past its timeout. */
export class ForwardError extends Error {
  override readonly name = 'ForwardError';
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function servingPort(line: string): number | undefined {
  if (!line.startsWith('{') || !line.includes('"serving"')) return undefined;
  try {
    const parsed = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return parsed.msg === 'serving' && typeof parsed.port === 'number' ? parsed.port : undefined;
  } catch {
    return undefined;
  }
}

/** The longest line a replica's output is held for: longer text (a `\r` progress bar) goes out in pieces. */
export const MAX_LINE_CHARS = 64 * 1024;

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export class Replica {
  readonly id: string;
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  /** Resolves with the port once the process serves; rejects if it exits or times out first. */
  readonly ready: Promise<number>;
  readonly exited: Promise<ExitInfo>;
  private port = 0;
  private exitInfo: ExitInfo | undefined;
  private readonly agent = new Agent({ keepAlive: true });

  constructor(o: ReplicaOptions) {
    this.id = o.id;
    this.child = spawn(
      process.execPath,
      [...REPLICA_V8_FLAGS, ...(o.nodeArgs ?? []), ...preloadArgs(o.entry), o.entry],
      {
        env: { ...o.env, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      },
    );
    // the channel is the replica's lifeline only: it neither keeps the landscape running
    this.child.channel?.unref();
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.agent.destroy();
        resolve(this.exitInfo);
      });
    });
    this.child.on('error', (err) => o.onLine('stderr', `spawn failed: ${err.message}`));
    let markReady: (port: number) => void = () => undefined;
    let markFailed: (err: Error) => void = () => undefined;
    this.ready = new Promise<number>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    this.ready.catch(() => undefined);
    const timeoutMs = o.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      markFailed(new Error(`did not listen within ${timeoutMs} ms`));
      this.kill();
    }, timeoutMs);
    void this.exited.then((info) => {
      clearTimeout(timer);
      markFailed(new Error(`exited before serving (code ${info.code}, signal ${info.signal})`));
    });
    this.pipe('stdout', o.onLine, (port) => {
      clearTimeout(timer);
      this.port = port;
      markReady(port);
    });
    this.pipe('stderr', o.onLine);
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private pipe(stream: LogStream, onLine: LineSink, onPort?: (port: number) => void): void {
    const source = this.child[stream];
    if (!source) return;
    const lines = lineSplitter((line) => {
      if (onPort && this.port === 0) {
        const port = servingPort(line);
        if (port !== undefined) onPort(port);
      }
      onLine(stream, line);
    }, MAX_LINE_CHARS);
    source.setEncoding('utf8');
    source.on('data', lines.push);
    source.on('end', lines.end);
  }

  /** Forwards one request; rejects with ForwardError when no response came. */
  forward(req: ForwardRequest): Promise<ForwardResponse> {
    return new Promise((resolve, reject) => {
      const out = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: req.method,
          path: req.path,
          headers: { ...req.headers, 'content-length': String(req.body.length) },
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 502,
              headers: flatHeaders(res.headers),
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', (err) => reject(new ForwardError(err.message, false)));
        },
      );
      out.setTimeout(req.timeoutMs, () => {
        out.destroy();
        reject(new ForwardError(`no response within ${req.timeoutMs} ms`, true));
      });
      out.on('error', (err) => reject(new ForwardError(err.message, false)));
      out.end(req.body);
    });
  }

  /** SIGTERM: the function finishes in-flight requests and exits. */
  terminate(): void {
    if (this.alive) this.child.kill('SIGTERM');
  }

  /** SIGKILL: gone at once (a deleted Pod, a replica that must not linger). */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }
}
