/**
 * A private `redis-server` (Debian's, on PATH) on a free loopback port, no persistence: what
 * `npm start` runs when REDIS_URL is not set, and what every test that needs Redis starts (tests
 * never touch 127.0.0.1:6379).
 *
 *   let redis: TestRedis;
 *   beforeAll(async () => { redis = await startRedis(); });
 *   afterAll(async () => { await redis.stop(); });
 *
 * redis-server runs in a process group (a session) of its own: Ctrl-C in the terminal of
 * `npm start` (SIGINT to the foreground process group) does not reach it, so it stays up until the
 * landscape stops it, after the functions finished their work. No redis-server outlives its
 * starter, even one killed outright (SIGKILL):
 * - with `setpriv` (util-linux, /usr/bin/setpriv on Debian) redis-server is started as
 *   `setpriv --pdeathsig SIGTERM -- redis-server …`: the kernel sends it SIGTERM when the thread
 *   that started it exits (prctl PR_SET_PDEATHSIG, kept across the exec). Nothing runs beside it.
 *   (A starter killed in the millisecond between the fork and setpriv's prctl is not noticed.)
 * - without it, under a small node keeper (~40 MB) that has an IPC channel to its starter and
 *   kills redis-server when that closes; SIGTERM to the keeper is passed on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer, connect } from 'node:net';
import { delimiter, join } from 'node:path';

export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL after a second). Idempotent. */
  stop(): Promise<void>;
  /** Stops and starts the server again on the same port (the data is gone: no persistence). */
  restart(): Promise<void>;
}

export interface StartRedisOptions {
  /** Default `redis-server`. */
  binary?: string;
  /** How long to wait for PING to answer; default 10 s. */
  readyTimeoutMs?: number;
  /** What makes sure redis-server does not outlive its starter: `auto` (default) is setpriv when it is on PATH, else the node keeper. */
  keeper?: 'auto' | 'node';
  /**
   * redis-server's `hz`: how often per second its background cron runs (expiring keys actively,
   * closing idle clients, stats). Default redis-server's own (10). The embedded landscape passes
   * 1: an idle redis-server then costs ~0.05 % of a core instead of ~0.2 % (measured, 2026-11-27:
   * 3 vs 13 clock ticks a minute), with no change a client can see (an expired key is still never
   * read: Redis expires it on access; blocked clients time out from the event loop, not the cron).
   */
  hz?: number;
}

/** A free TCP port on 127.0.0.1 (the OS picks one). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket; resolves true on `+PONG`. */
export async function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d: Buffer) => done(d.toString('utf8').startsWith('+PONG')));
  });
}

async function waitForPing(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

/** Without setpriv, `node -e KEEPER <binary> <args...>`: runs redis-server until SIGTERM or until its starter is gone. */
const KEEPER = `
const { spawn } = require('node:child_process');
const [binary, ...args] = process.argv.slice(1);
const redis = spawn(binary, args, { stdio: 'ignore' });
redis.on('error', () => process.exit(127));
redis.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.on('SIGTERM', () => redis.kill('SIGTERM'));
process.on('SIGINT', () => undefined);
process.on('disconnect', () => redis.kill('SIGKILL'));
process.channel?.unref();
`;

function spawnRedis(binary: string, port: number, keeper: 'auto' | 'node', hz?: number): ChildProcess {
  const args = ['--save', '', '--appendonly', 'no', '--port', String(port), '--bind', '127.0.0.1'];
  if (hz !== undefined) args.push('--hz', String(hz));
  const setpriv = keeper === 'auto' ? findBinary('setpriv') : undefined;
  const child =
    setpriv !== undefined
      ? spawn(setpriv, ['--pdeathsig', 'SIGTERM', '--', binary, ...args], { stdio: 'ignore', detached: true })
      : spawn(process.execPath, ['-e', KEEPER, binary, ...args], {
          stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
          detached: true,
        });
  child.channel?.unref();
  child.on('error', () => undefined);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  // it leads its own process group: SIGKILL to the group takes redis-server (or keeper and redis-server)
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, 1000);
  await exited;
  clearTimeout(timer);
}

/** The binary is missing: the message says what to do. */
export class RedisNotInstalledError extends Error {
  override readonly name = 'RedisNotInstalledError';
}

/** The binary's path on PATH (or as given, when it has a slash); undefined when there is none. */
export function findBinary(binary: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = binary.includes('/') ? [binary] : path.split(delimiter).map((d) => join(d, binary));
  return candidates.find((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The error for a missing binary, with what to do about it. */
export function redisNotInstalled(binary: string): RedisNotInstalledError {
  return new RedisNotInstalledError(
    `${binary} is not installed and REDIS_URL is not set: install it (Debian: apt-get install redis-server) or set REDIS_URL=redis://host:port`,
  );
}

/** Starts a private redis-server and waits until it answers PING. */
export async function startRedis(opts: StartRedisOptions = {}): Promise<TestRedis> {
  const binary = opts.binary ?? 'redis-server';
  if (findBinary(binary) === undefined) throw redisNotInstalled(binary);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 10_000;
  const keeper = opts.keeper ?? 'auto';
  if (opts.hz !== undefined && !(Number.isInteger(opts.hz) && opts.hz >= 1 && opts.hz <= 500))
    throw new Error(`redis-server hz must be an integer from 1 to 500, got ${opts.hz}`);
  const port = await freePort();
  let child = spawnRedis(binary, port, keeper, opts.hz);
  await waitForPing(port, child, readyTimeoutMs).catch(async (err: unknown) => {
    await kill(child);
    throw err;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => kill(child),
    async restart(): Promise<void> {
      await kill(child);
      child = spawnRedis(binary, port, keeper, opts.hz);
      await waitForPing(port, child, readyTimeoutMs);
    },
  };
}
