import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKubeClient } from './client.js';
import { kubeConfigFromYaml } from './config.js';
import { DEFAULT_TRANSIENT_RETRY, retryDelay, type Attempt, type TransientRetry } from './transient.js';

const policy: TransientRetry = { maxRetries: 3, maxRetryAfterMs: 5000, baseMs: 100 };
const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('retryDelay', () => {
  it.each<[string, string, Attempt, number, number | undefined]>([
    ['429 with Retry-After', 'POST', { kind: 'answer', status: 429, retryAfter: '1' }, 0, 1000],
    ['500 with Retry-After', 'PATCH', { kind: 'answer', status: 500, retryAfter: '2' }, 1, 2000],
    ['Retry-After is capped', 'GET', { kind: 'answer', status: 429, retryAfter: '60' }, 0, 5000],
    ['429 without Retry-After: not retried', 'GET', { kind: 'answer', status: 429 }, 0, undefined],
    ['a GET answered 500 without Retry-After: sent again', 'GET', { kind: 'answer', status: 500 }, 1, 200],
    [
      'a write answered 500 without Retry-After: not retried',
      'PATCH',
      { kind: 'answer', status: 500 },
      0,
      undefined,
    ],
    ['409 never', 'PUT', { kind: 'answer', status: 409, retryAfter: '1' }, 0, undefined],
    [
      'an HTTP date is not honoured',
      'GET',
      { kind: 'answer', status: 429, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' },
      0,
      undefined,
    ],
    ['a GET whose connection was reset', 'GET', { kind: 'error', error: reset }, 0, 100],
    ['... backs off', 'GET', { kind: 'error', error: refused }, 2, 400],
    [
      'a write whose connection failed: maybe applied, not retried',
      'POST',
      { kind: 'error', error: reset },
      0,
      undefined,
    ],
    ['a timeout is not retried', 'GET', { kind: 'error', error: new Error('GET /x: timeout') }, 0, undefined],
    ['no more than maxRetries', 'GET', { kind: 'answer', status: 429, retryAfter: '1' }, 3, undefined],
  ])('%s', (_name, method, attempt, k, want) => {
    expect(retryDelay(policy, method, attempt, k)).toBe(want);
  });
});

/** Answers the first `failures` requests with 429 + Retry-After, then 200. */
async function throttlingServer(
  failures: number,
): Promise<{ url: string; seen: () => number; close: () => Promise<void> }> {
  let seen = 0;
  const server = http.createServer((_req, res) => {
    seen++;
    if (seen <= failures) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"kind":"Status","code":429,"reason":"TooManyRequests"}');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen: () => seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const kubeconfig = (server: string): string => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;

describe('a client with retryTransient', () => {
  it('sends again after Retry-After until the answer is not throttled', async () => {
    const server = await throttlingServer(2);
    const waits: number[] = [];
    const sleep = (ms: number): Promise<void> => (waits.push(ms), Promise.resolve());
    try {
      const client = createKubeClient(kubeConfigFromYaml(kubeconfig(server.url)), {
        retryTransient: { ...DEFAULT_TRANSIENT_RETRY, sleep },
      });
      const res = await client.request({ method: 'POST', path: '/api/v1/namespaces/a/configmaps', body: {} });
      expect(res.status).toBe(200);
      expect(server.seen()).toBe(3);
      expect(waits).toEqual([1000, 1000]);
    } finally {
      await server.close();
    }
  });

  it('without it, the first 429 is the answer', async () => {
    const server = await throttlingServer(1);
    try {
      const client = createKubeClient(kubeConfigFromYaml(kubeconfig(server.url)));
      await expect(client.request({ method: 'GET', path: '/version' })).rejects.toMatchObject({ code: 429 });
      expect(server.seen()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a GET to a server that is not there yet is sent again; it fails once retries run out', async () => {
    const server = await throttlingServer(0);
    const url = server.url;
    await server.close();
    const waits: number[] = [];
    const client = createKubeClient(kubeConfigFromYaml(kubeconfig(url)), {
      retryTransient: {
        maxRetries: 2,
        maxRetryAfterMs: 1000,
        baseMs: 10,
        sleep: (ms) => (waits.push(ms), Promise.resolve()),
      },
    });
    await expect(client.request({ method: 'GET', path: '/version' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(waits).toEqual([10, 20]);
  });
});
