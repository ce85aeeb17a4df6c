/**
 * A GET of a small JSON document with node:http(s). The global `fetch` is undici: its first use in
 * a process loads undici and compiles llhttp's WebAssembly, and V8 then tiers that code up on
 * background threads — ≈ 0.1–0.2 CPU-s after the answer in a replica that lives for one tick.
 */
import http from 'node:http';
import https from 'node:https';

export interface JsonAnswer {
  status: number;
  /** The parsed body; undefined when it is no JSON. */
  body: unknown;
}

/** GET `url`; rejects on a connection error or after `timeoutMs` without a whole answer. */
export function getJson(url: URL, timeoutMs: number): Promise<JsonAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.get(url, { headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer from ${url.origin} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
