/**
 * A private, empty `redis-server` for the bench (no persistence, a free port), so `requeue-tick`'s
 * first event does what it does in the landscape: connect, look for due items, find none.
 * Absent `redis-server` on PATH, there is none and the function acknowledges its first event with
 * its "invalid config" log instead (the bench says which in its output).
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { childEnv, freePort, sleep, type Child, type ChildSet } from './children.js';

export interface PrivateRedis {
  url: string;
  child: Child;
}

function onPath(command: string): string | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  return dirs.map((d) => join(d, command)).find((p) => existsSync(p));
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data: Buffer) => done(data.toString('utf8').startsWith('+PONG')));
  });
}

/** Starts redis-server and waits for PONG; undefined when there is no redis-server. */
export async function startRedis(children: ChildSet, timeoutMs = 5_000): Promise<PrivateRedis | undefined> {
  const bin = onPath('redis-server');
  if (bin === undefined) return undefined;
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = children.spawn(bin, args, childEnv());
  const deadline = performance.now() + timeoutMs;
  while (!(await ping(port))) {
    if (child.hasExited() || performance.now() > deadline) {
      await children.kill(child);
      throw new Error(`redis-server did not answer PING on port ${port}\n${child.output()}`);
    }
    await sleep(20);
  }
  return { url: `redis://127.0.0.1:${port}`, child };
}
