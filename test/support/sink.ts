/**
 * Test support: a local HTTP sink that records every request (for K_SINK and PingSource sinks).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface TestSink {
  readonly url: string;
  readonly requests: SinkRequest[];
  /** The status the sink answers with (default 202). */
  status: number;
  /** Resolves once `n` requests have arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<SinkRequest[]>;
  close(): Promise<void>;
}

export async function startSink(): Promise<TestSink> {
  const requests: SinkRequest[] = [];
  const waiters: Array<() => void> = [];
  const sink = {} as TestSink;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      });
      res.statusCode = sink.status;
      res.end();
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}/`,
    requests,
    status: 202,
    async waitFor(n: number, timeoutMs = 5000): Promise<SinkRequest[]> {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`sink got ${requests.length} of ${n} requests in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 100));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return requests.slice(0, n);
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
