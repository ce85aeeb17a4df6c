import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { GroupVersionKind } from '../api/gvk.js';
import type { ObjectList } from '@landscape/apimachinery';
import type { ListOptions, ObjectLike } from '../kube/index.js';
import { createLogger, type Logger } from '../log/index.js';
import {
  activatorSource,
  ActivatorStatusError,
  collectStatistics,
  fetchActivatorStatus,
  knativeSource,
  listAll,
  MONITORING_LOGGER_NAME,
  parseActivatorStatus,
  POD_AUTOSCALER_GVK,
  type KubeLister,
  type StatisticsSource,
} from './index.js';

function capture(): { log: Logger; raw: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb): void {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ name: MONITORING_LOGGER_NAME, destination, now: () => 0 });
  return { log, raw: () => chunks.join('').split('\n').filter(Boolean) };
}

const TS = '"level":"info","ts":"1970-01-01T00:00:00.000Z","logger":"controllers.landscaper-monitoring"';

describe('collectStatistics', () => {
  it('logs one line per function and one error per failing source, and goes on', async () => {
    const { log, raw } = capture();
    const sources: StatisticsSource[] = [
      {
        name: 'ok-1',
        collect: () => Promise.resolve([{ resource: 'a/f', currentReplicas: 1, desiredReplicas: 2 }]),
      },
      {
        name: 'rejects',
        collect: () => Promise.reject(new Error('the server could not find the requested resource')),
      },
      {
        name: 'throws at once',
        collect: (): Promise<never> => {
          throw new Error('boom');
        },
      },
      {
        name: 'ok-2',
        collect: () => Promise.resolve([{ resource: 'b/g' }, { resource: 'b/h', currentReplicas: 0 }]),
      },
    ];
    const result = await collectStatistics(sources, log);
    expect(result).toEqual({ logged: 3, failed: ['rejects', 'throws at once'] });
    expect(raw()).toEqual([
      `{${TS},"msg":"HPA Statistics","resource":"a/f","currentReplicas":1,"desiredReplicas":2}`,
      '{"level":"error","ts":"1970-01-01T00:00:00.000Z","logger":"controllers.landscaper-monitoring",' +
        '"msg":"monitor: failed to collect autoscaling statistics","source":"rejects",' +
        '"error":"the server could not find the requested resource"}',
      '{"level":"error","ts":"1970-01-01T00:00:00.000Z","logger":"controllers.landscaper-monitoring",' +
        '"msg":"monitor: failed to collect autoscaling statistics","source":"throws at once","error":"boom"}',
      `{${TS},"msg":"HPA Statistics","resource":"b/g"}`,
      `{${TS},"msg":"HPA Statistics","resource":"b/h","currentReplicas":0}`,
    ]);
  });

  it('logs nothing without sources', async () => {
    const { log, raw } = capture();
    expect(await collectStatistics([], log)).toEqual({ logged: 0, failed: [] });
    expect(raw()).toEqual([]);
  });
});

describe('parseActivatorStatus', () => {
  it.each<[string, unknown]>([
    ['not a list', { replicas: 1 }],
    ['a row without a name', [{ namespace: 'n', replicas: 1 }]],
    ['a count that is not a number', [{ name: 'f', namespace: 'n', replicas: '1' }]],
    ['null row', [null]],
  ])('refuses %s', (_name, body) => {
    expect(() => parseActivatorStatus(body)).toThrow(ActivatorStatusError);
  });

  it('accepts the activator PoolStatus rows', () => {
    const rows = [
      {
        name: 'deployer-mock',
        namespace: 'landscape',
        replicas: 1,
        ready: 1,
        inFlight: 0,
        queued: 0,
        coldStarts: 1,
        answered: 4,
        redelivered: 0,
        desired: 1,
        pods: ['deployer-mock-abc'],
      },
    ];
    expect(parseActivatorStatus(rows)).toEqual(rows);
  });
});

function fakeFetch(status: number, body: unknown): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const f = ((url: URL | string): Promise<Response> => {
    urls.push(String(url));
    return Promise.resolve(new Response(JSON.stringify(body), { status }));
  }) as typeof fetch;
  return { fetch: f, urls };
}

describe('fetchActivatorStatus', () => {
  it('GETs <base>/status', async () => {
    const { fetch, urls } = fakeFetch(200, [{ name: 'f', namespace: 'n', replicas: 2, desired: 2 }]);
    expect(await fetchActivatorStatus('http://127.0.0.1:9/', { fetch })).toEqual([
      { name: 'f', namespace: 'n', replicas: 2, desired: 2 },
    ]);
    await fetchActivatorStatus('http://127.0.0.1:9/activator', { fetch });
    expect(urls).toEqual(['http://127.0.0.1:9/status', 'http://127.0.0.1:9/activator/status']);
  });

  it('turns a non-2xx answer into ActivatorStatusError', async () => {
    const { fetch } = fakeFetch(503, 'nope');
    await expect(fetchActivatorStatus('http://127.0.0.1:9', { fetch })).rejects.toThrow(
      'activator http://127.0.0.1:9/status answered 503',
    );
  });

  it('maps rows to lines through activatorSource', async () => {
    const { fetch } = fakeFetch(200, [{ name: 'f', namespace: 'n', replicas: 0, desired: 1 }]);
    expect(await activatorSource('http://127.0.0.1:9', { fetch }).collect()).toEqual([
      { resource: 'n/f', currentReplicas: 0, desiredReplicas: 1 },
    ]);
  });
});

describe('fetchActivatorStatus over node:http (the default, no global fetch)', () => {
  let server: Server;
  let base: string;
  const answers: { status: number; body: string; hang?: boolean }[] = [];
  const paths: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      const a = answers.shift() ?? { status: 404, body: '' };
      if (a.hang) return; // never answers
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('GETs <base>/status and parses the rows', async () => {
    answers.push({
      status: 200,
      body: JSON.stringify([{ name: 'f', namespace: 'n', replicas: 2, desired: 1 }]),
    });
    expect(await fetchActivatorStatus(`${base}/activator`)).toEqual([
      { name: 'f', namespace: 'n', replicas: 2, desired: 1 },
    ]);
    expect(paths.at(-1)).toBe('/activator/status');
  });

  it('a non-2xx answer, a body that is no list, and no answer in time are errors', async () => {
    answers.push({ status: 503, body: 'nope' });
    await expect(fetchActivatorStatus(base)).rejects.toThrow(`activator ${base}/status answered 503`);
    answers.push({ status: 200, body: 'not json' });
    await expect(fetchActivatorStatus(base)).rejects.toThrow('activator /status is not a JSON list');
    answers.push({ status: 200, body: '', hang: true });
    await expect(fetchActivatorStatus(base, { timeoutMs: 50 })).rejects.toThrow('within 50 ms');
  });
});

/** A lister over fixed pages per plural. */
function fakeLister(pages: Record<string, ObjectLike[][]>): KubeLister & { calls: [string, ListOptions?][] } {
  const calls: [string, ListOptions?][] = [];
  return {
    calls,
    list<T extends ObjectLike>(
      gvk: GroupVersionKind,
      _ns?: string,
      options?: ListOptions,
    ): Promise<ObjectList<T>> {
      calls.push([gvk.plural, options]);
      const all = pages[gvk.plural];
      if (!all) return Promise.reject(new Error(`the server could not find ${gvk.plural}`));
      const i = options?.continue ? Number(options.continue) : 0;
      const next = i + 1 < all.length ? String(i + 1) : undefined;
      return Promise.resolve({ items: (all[i] ?? []) as T[], metadata: next ? { continue: next } : {} });
    },
  };
}

describe('listAll', () => {
  it('follows continue tokens', async () => {
    const lister = fakeLister({
      podautoscalers: [
        [{ metadata: { name: 'a' } }],
        [{ metadata: { name: 'b' } }],
        [{ metadata: { name: 'c' } }],
      ],
    });
    const items = await listAll(lister, POD_AUTOSCALER_GVK, 'landscape');
    expect(items.map((i) => i.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(lister.calls).toEqual([
      ['podautoscalers', { limit: 500 }],
      ['podautoscalers', { limit: 500, continue: '1' }],
      ['podautoscalers', { limit: 500, continue: '2' }],
    ]);
  });
});

describe('knativeSource', () => {
  const kpa = {
    metadata: { name: 'f-00001', namespace: 'landscape', labels: { 'serving.knative.dev/service': 'f' } },
    status: { actualScale: 1, desiredScale: 1 },
  };
  it('does not list HPAs when no PodAutoscaler is of the HPA class', async () => {
    const lister = fakeLister({ podautoscalers: [[kpa]] });
    expect(await knativeSource(lister, 'landscape').collect()).toEqual([
      { resource: 'landscape/f', currentReplicas: 1, desiredReplicas: 1 },
    ]);
    expect(lister.calls.map((c) => c[0])).toEqual(['podautoscalers']);
  });

  it('lists HPAs for HPA-class PodAutoscalers', async () => {
    const hpaClass = {
      metadata: {
        name: 'g-00001',
        namespace: 'landscape',
        labels: { 'serving.knative.dev/service': 'g' },
        annotations: { 'autoscaling.knative.dev/class': 'hpa.autoscaling.knative.dev' },
      },
      status: { actualScale: 1, desiredScale: 1 },
    };
    const hpa = {
      metadata: { name: 'g-00001', namespace: 'landscape' },
      status: {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'memory', current: { averageValue: '100Mi' } } },
        ],
      },
    };
    const lister = fakeLister({ podautoscalers: [[kpa, hpaClass]], horizontalpodautoscalers: [[hpa]] });
    expect(await knativeSource(lister, 'landscape').collect()).toEqual([
      { resource: 'landscape/f', currentReplicas: 1, desiredReplicas: 1 },
      { resource: 'landscape/g', currentReplicas: 2, desiredReplicas: 2, memoryAverageValue: '100Mi' },
    ]);
  });
});
