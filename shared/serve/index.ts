/**
 * Serving one registered Functions Framework function as its own process: the entry of every
 * `server.js` bundle (a Knative container, a replica of the embedded activator). It listens on
 * PORT (8080) with the server `functions-framework --target` runs (./framework.ts: the
 * framework's `getServer` with the options of its command line and environment; no 500 with a
 * stack for a GET; errors as JSON lines), stops gracefully on SIGTERM (no new requests, in-flight
 * ones finish, connections closed as they turn idle, then exit 0) where the framework's own
 * `main` exits at once, and exits 1 on an uncaught exception, as the framework's `main` does, so
 * the platform replaces the replica. Once the first response is sent it runs what `preload.cjs`
 * left for that moment (writing the code cache, ./preload.ts).
 */
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterFirstResponse } from './code-cache.js';
import { frameworkServer, jsonLogLine } from './framework.js';
import { podName } from '../function/pod.js';

export interface ServeOptions {
  /** The registered function name (FUNCTION_TARGET). */
  name: string;
  port: number;
  host?: string;
  /** The environment of the framework's options (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface Serving {
  server: Server;
  port: number;
  /** Stops accepting, waits for in-flight requests (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

function jsonLine(msg: string, fields: Record<string, unknown> = {}, level = 'info'): void {
  process.stdout.write(`${jsonLogLine(level, msg, fields)}\n`);
}

/** Builds the framework's server for `name` and listens. */
export async function serveFunction(o: ServeOptions): Promise<Serving> {
  const server = frameworkServer(o.name, o.env ? { env: o.env } : {});
  server.setTimeout(0); // as the framework's main: no socket timeout
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: (graceMs = 30_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        // A kept-alive connection whose request finishes after close() would otherwise stay open
        // until the keep-alive timeout (5 s): close connections as soon as they turn idle.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        sweep.unref();
        server.close(() => {
          clearTimeout(timer);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** Parses PORT; a wrong value is an error the operator sees at start. */
export function portFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env['PORT'] ?? '8080';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT "${raw}" is not a port number`);
  return port;
}

/** The process entry of a `server.js` bundle: serve, then stop on SIGTERM/SIGINT. */
export function main(name: string, env: Readonly<Record<string, string | undefined>> = process.env): void {
  const log = jsonLine;
  // `ps` (and process accounting) name the function, not "node"
  process.title = name;
  process.on('uncaughtException', (err) => {
    const fields = { function: name, error: String(err), stack: err.stack };
    log('uncaught exception: exiting so the replica is replaced', fields, 'error');
    process.exit(1);
  });
  serveFunction({ name, port: portFrom(env), env }).then(
    (serving) => {
      log('serving', { function: name, port: serving.port, pod: podName(env) });
      // what the preload asked for once a first event went through (the code cache: ./preload.ts)
      serving.server.once('request', (_req, res: ServerResponse) =>
        res.once('finish', () => setImmediate(afterFirstResponse)),
      );
      const stop = (signal: string): void => {
        log('stopping', { function: name, signal });
        void serving.close().then(() => process.exit(0));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    },
    (err: unknown) => {
      log('cannot serve', { function: name, error: String(err) }, 'error');
      process.exit(1);
    },
  );
}
