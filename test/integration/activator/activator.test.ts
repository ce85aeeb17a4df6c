/**
 * The activator with real Functions Framework processes (no API server: no Pods): cold start on
 * the first request, scale to zero after the idle window, containerConcurrency and max-scale
 * held under a burst, a replica dying under a request (redelivered), the Service's timeout (504),
 * a function that cannot start (503 after backoff), and a deleted Pod killing its replica.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Activator, toFunctionService, type FunctionService } from '../../../local/activator/index.js';
import { bundleFunction } from '../../../local/bundle.js';

let dir: string;
let entry: string;
const lines: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'activator-'));
  const b = await bundleFunction({
    name: 'sleeper',
    functionsDir: 'test/integration/activator/functions',
    outDir: dir,
    kind: 'server',
    sourcemap: false,
  });
  entry = b.file;
}, 30_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function service(annotations: Record<string, string>, spec: Record<string, unknown> = {}): FunctionService {
  const r = toFunctionService({
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name: 'sleeper', namespace: 'fns' },
    spec: {
      template: {
        metadata: { annotations },
        spec: { containers: [{ image: 'x' }], ...spec },
      },
    },
  });
  if (!r.service) throw new Error(r.problems.join('; '));
  return r.service;
}

async function activator(
  s: FunctionService,
  opts: { idleMs?: number; entry?: string } = {},
): Promise<Activator> {
  const a = new Activator({
    services: [s],
    entries: new Map([['sleeper', opts.entry ?? entry]]),
    envFor: (_s, pod) => Promise.resolve({ PATH: process.env.PATH ?? '', POD_NAME: pod }),
    onLine: (_s, pod, stream, line) => lines.push(`${pod} ${stream} ${line}`),
    overrides: { idleMs: opts.idleMs ?? 60_000 },
    registry: new Registry(),
    log: () => undefined,
  });
  await a.start();
  return a;
}

/** Binary-mode CloudEvent headers of the sleeper's test events. */
function ceHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'ce-id': String(Math.random()),
    'ce-type': 'test.sleep',
    'ce-source': '/test',
    'ce-specversion': '1.0',
    'content-type': 'application/json',
    ...extra,
  };
}

function post(a: Activator, data: unknown): Promise<Response> {
  return fetch(`${a.urlFor('fns', 'sleeper')}`, {
    method: 'POST',
    headers: ceHeaders(),
    body: JSON.stringify(data),
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

it('starts a replica on the first request and stops it after the idle window', async () => {
  const a = await activator(service({}), { idleMs: 400 });
  try {
    expect(a.status()[0]).toMatchObject({ replicas: 0, coldStarts: 0 });
    const res = await post(a, { ms: 0 });
    expect(res.status).toBe(204);
    expect(a.status()[0]).toMatchObject({ replicas: 1, coldStarts: 1, answered: 1 });
    await until(() => a.status()[0].replicas === 0 && a.status()[0].pods.length === 0);
    expect((await post(a, { ms: 0 })).status).toBe(204);
    expect(a.status()[0].coldStarts).toBe(2);
    expect(lines.some((l) => l.includes('"msg":"serving"'))).toBe(true);
  } finally {
    await a.stop();
  }
}, 30_000);

it('holds containerConcurrency and max-scale under a burst', async () => {
  const a = await activator(
    service(
      { 'autoscaling.knative.dev/max-scale': '2', 'autoscaling.knative.dev/target': '1' },
      { containerConcurrency: 1 },
    ),
  );
  try {
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, a.status()[0].replicas)), 10);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(a, { ms: 300 })));
    clearInterval(watch);
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(204));
    expect(most).toBe(2);
    // six 300 ms requests, one at a time on each of two replicas: at least three rounds
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  } finally {
    await a.stop();
  }
}, 30_000);

it('delivers a request again when its replica dies under it', async () => {
  const a = await activator(service({}));
  try {
    const res = await post(a, { crashOnce: join(dir, 'crashed') });
    expect(res.status).toBe(204);
    expect(a.status()[0]).toMatchObject({ redelivered: 1, coldStarts: 2 });
  } finally {
    await a.stop();
  }
}, 30_000);

it('kills the replica of a deleted Pod and delivers its request again', async () => {
  const a = await activator(service({}));
  try {
    const pending = post(a, { ms: 1500 });
    await until(() => a.status()[0].inFlight === 1);
    const [pod] = a.status()[0].pods;
    a.podDeleted('fns', pod);
    expect((await pending).status).toBe(204);
    expect(a.status()[0].redelivered).toBe(1);
    expect(a.status()[0].pods).not.toContain(pod);
  } finally {
    await a.stop();
  }
}, 30_000);

it("answers 504 when the function runs past the Service's timeoutSeconds", async () => {
  const a = await activator(service({}, { timeoutSeconds: 1 }));
  try {
    const res = await post(a, { ms: 2500 });
    expect(res.status).toBe(504);
  } finally {
    await a.stop();
  }
}, 30_000);

it('answers 503 when the function cannot start, after backing off', async () => {
  const a = await activator(service({}), { entry: join(dir, 'missing.js') });
  try {
    const started = Date.now();
    const res = await post(a, {});
    expect(res.status).toBe(503);
    // three tries, 0.5 s and 1 s apart
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(await res.text()).toMatch(/sleeper cannot start/);
  } finally {
    await a.stop();
  }
}, 30_000);

it('answers 404 for a function it does not run', async () => {
  const a = await activator(service({}));
  try {
    const res = await fetch(`${a.url}/fns/other`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  } finally {
    await a.stop();
  }
});

it('quiesced (the landscape is stopping): a replica that dies is not replaced', async () => {
  const a = await activator(service({}));
  try {
    const pending = post(a, { ms: 1500 });
    await until(() => a.status()[0].inFlight === 1);
    a.quiesce();
    const [pod] = a.status()[0].pods;
    a.podDeleted('fns', pod);
    await new Promise((r) => setTimeout(r, 500));
    expect(a.status()[0].coldStarts).toBe(1);
    expect(a.status()[0].pods).toEqual([]);
    await a.stop();
    expect((await pending).status).toBe(503);
  } finally {
    await a.stop();
  }
}, 30_000);

describe('deliveries(): the embedded brokers hand a delivery to the pool without an HTTP request', () => {
  it('answers as over HTTP: 204, the data as sent, 504 past the timeout, 404 for another function', async () => {
    const a = await activator(service({}, { timeoutSeconds: 1 }));
    const elsewhere: string[] = [];
    const fetchLocal = a.deliveries((url) => {
      elsewhere.push(url);
      return Promise.resolve({
        status: 202,
        headers: { forEach: () => undefined },
        text: () => Promise.resolve(''),
      });
    });
    try {
      const echo = join(dir, 'echo.json');
      const body = Buffer.from(JSON.stringify({ ms: 0, word: 'grüße' }), 'utf8');
      const ok = await fetchLocal(a.urlFor('fns', 'sleeper')!, {
        method: 'POST',
        headers: ceHeaders({ 'ce-echoto': echo }),
        body: new Uint8Array(body),
      });
      expect(ok.status).toBe(204);
      expect(JSON.parse(await readFile(echo, 'utf8'))).toEqual({ ms: 0, word: 'grüße' });
      expect(a.status()[0]).toMatchObject({ replicas: 1, coldStarts: 1 });

      const late = await fetchLocal(a.urlFor('fns', 'sleeper')!, {
        method: 'POST',
        headers: ceHeaders(),
        body: JSON.stringify({ ms: 2500 }),
      });
      expect(late.status).toBe(504);

      const other = await fetchLocal(`${a.url}/fns/other`, { method: 'POST', body: '{}' });
      expect(other.status).toBe(404);
      expect(await other.text()).toMatch(/no function at \/fns\/other/);

      // not the activator's: the fallback (the ingress, a function URL)
      expect((await fetchLocal('http://127.0.0.1:9/elsewhere', { method: 'POST', body: '' })).status).toBe(
        202,
      );
      expect(elsewhere).toEqual(['http://127.0.0.1:9/elsewhere']);
    } finally {
      await a.stop();
    }
  }, 30_000);

  it('gives the answer the HTTP path gives: status, body and headers (less what a connection adds)', async () => {
    const a = await activator(service({}));
    try {
      const url = a.urlFor('fns', 'sleeper')!;
      const local = await a.deliveries()(url, { method: 'POST', headers: ceHeaders(), body: '{"ms":0}' });
      const http = await fetch(url, { method: 'POST', headers: ceHeaders(), body: '{"ms":0}' });
      const headersOf = (h: {
        forEach(cb: (v: string, k: string) => void): void;
      }): Record<string, string> => {
        const out: Record<string, string> = {};
        h.forEach((v, k) => {
          // per connection or per response, set by Node's HTTP server in the HTTP path
          if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k))
            out[k.toLowerCase()] = v;
        });
        return out;
      };
      expect([local.status, await local.text(), headersOf(local.headers)]).toEqual([
        http.status,
        await http.text(),
        headersOf(http.headers),
      ]);
      // a body that is no JSON: the framework's own error answer, the same either way
      const bad = ceHeaders();
      const localBad = await a.deliveries()(url, { method: 'POST', headers: bad, body: '{not json' });
      const httpBad = await fetch(url, { method: 'POST', headers: bad, body: '{not json' });
      expect([localBad.status, await localBad.text(), headersOf(localBad.headers)]).toEqual([
        httpBad.status,
        await httpBad.text(),
        headersOf(httpBad.headers),
      ]);
      expect(localBad.status).toBeGreaterThanOrEqual(400);
      expect(headersOf(localBad.headers)['content-type']).toBeDefined();
    } finally {
      await a.stop();
    }
  }, 30_000);

  it('rejects as a network error when the signal aborts; the request is still answered by its replica', async () => {
    const a = await activator(service({}));
    try {
      const fetchLocal = a.deliveries();
      const controller = new AbortController();
      const pending = fetchLocal(a.urlFor('fns', 'sleeper')!, {
        method: 'POST',
        headers: ceHeaders(),
        body: JSON.stringify({ ms: 600 }),
        signal: controller.signal,
      });
      await until(() => a.status()[0].inFlight === 1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      await until(() => a.status()[0].inFlight === 0);
      expect(a.status()[0].answered).toBe(1);
    } finally {
      await a.stop();
    }
  }, 30_000);
});
