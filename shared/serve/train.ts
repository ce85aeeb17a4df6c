/**
 * A training start of a server bundle (`server.cjs`): the process is started as a replica starts
 * it (`node <REPLICA_V8_FLAGS> --require ./preload.cjs server.cjs`, PORT=0, ./v8-flags.ts), gets one binary-mode CloudEvent, and
 * writes its code cache (`server.cjs.codecache`, ./code-cache.ts) once it has answered; then it is
 * killed. What the runtime bench runs before it measures; it must run with the node (and V8
 * flags) that will run the bundle: V8 refuses a cache of another version or other flags. The
 * image trains every bundle in its final stage with this (scripts/train-code-cache.ts).
 *
 * The event's answer does not matter (without its configuration a function answers 500): the
 * cache holds what the start and that request compiled; a replica that gets a real first event
 * compiles the rest itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CACHE_SUFFIX } from './code-cache.js';
import { REPLICA_V8_FLAGS } from './v8-flags.js';

export interface TrainOptions {
  /** The environment of the training start (PORT is set to 0); default: PATH and HOME only. */
  env?: Record<string, string>;
  /** Node flags before the preload, after REPLICA_V8_FLAGS (the other flags the replicas run with). */
  nodeArgs?: readonly string[];
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

/** The port of the serve entry's `serving` line (shared/serve/index.ts), if it is one. */
export function servingPort(line: string): number | undefined {
  if (!line.startsWith('{') || !line.includes('"serving"')) return undefined;
  try {
    const p = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return p.msg === 'serving' && typeof p.port === 'number' ? p.port : undefined;
  } catch {
    return undefined;
  }
}

function postEvent(port: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': 'code-cache-training',
          'ce-type': 'dev.landscape.codecache.training',
          'ce-source': '/landscape/code-cache',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end('{}');
  });
}

async function until(cond: () => boolean, deadline: number): Promise<boolean> {
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

interface Started {
  port(): number | undefined;
  exited(): boolean;
  output(): string;
  kill(): void;
}

function start(serverCjs: string, o: TrainOptions): Started {
  const env = {
    ...(o.env ?? { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' }),
    PORT: '0',
  };
  // absolute: `--require` takes a bare relative path for a package name
  const preload = resolve(dirname(serverCjs), 'preload.cjs');
  const child = spawn(
    process.execPath,
    [...REPLICA_V8_FLAGS, ...(o.nodeArgs ?? []), '--require', preload, serverCjs],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let port: number | undefined;
  createInterface({ input: child.stdout }).on('line', (l) => {
    output += `${l}\n`;
    port ??= servingPort(l);
  });
  child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    port: () => port,
    exited: () => exited,
    output: () => output.slice(-2000),
    kill: () => void (exited || child.kill('SIGKILL')),
  };
}

/** Writes `<server.cjs>.codecache` by a training start; the cache file, or an error with the output. */
export async function trainCodeCache(serverCjs: string, o: TrainOptions = {}): Promise<string> {
  const cacheFile = `${serverCjs}${CACHE_SUFFIX}`;
  rmSync(cacheFile, { force: true });
  const p = start(serverCjs, o);
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  try {
    await until(() => p.port() !== undefined || p.exited(), deadline);
    const port = p.port();
    if (port === undefined) throw new Error(`${serverCjs}: did not serve\n${p.output()}`);
    await postEvent(port);
    await until(() => existsSync(cacheFile) || p.exited(), deadline);
    if (!existsSync(cacheFile)) throw new Error(`${serverCjs}: wrote no code cache\n${p.output()}`);
    return cacheFile;
  } finally {
    p.kill();
  }
}
