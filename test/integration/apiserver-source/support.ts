/** A local HTTP sink that records binary-mode CloudEvents, and helpers to wait for them. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../../shared/log/index.js';
import type { Logger } from '../../../shared/log/index.js';

export interface Received {
  headers: Record<string, string>;
  body: any;
}

export interface Sink {
  url: string;
  events: Received[];
  /** Answer with these statuses first (then 202). */
  failNext(statuses: number[]): void;
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const events: Received[] = [];
  const failures: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = failures.shift();
      if (status !== undefined) {
        res.writeHead(status).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const text = Buffer.concat(chunks).toString('utf8');
      events.push({ headers, body: text === '' ? undefined : JSON.parse(text) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    events,
    failNext: (statuses) => failures.push(...statuses),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function sleepMs(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** `type name` of each event, in order, for the events matching `filter`. */
export function summary(events: Received[], filter: (e: Received) => boolean = () => true): string[] {
  return events.filter(filter).map((e) => `${e.headers['ce-type']} ${e.headers['ce-name']}`);
}

export function captureLogger(): { logger: Logger; lines: () => any[] } {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      );
      cb();
    },
  });
  return {
    logger: createLogger({ name: 'apiserver-source', level: 'debug', destination }),
    lines: () => raw.map((l) => JSON.parse(l)),
  };
}
