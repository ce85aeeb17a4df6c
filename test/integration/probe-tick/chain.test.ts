/**
 * probe-tick queues its own next invocation (issue 16: no PingSource a minute): an invocation whose
 * last pass left a prober running queues the next one due at once (requeue-tick hands it over);
 * after a first pass that left one running it queues one due at the end of its span (an
 * invocation that dies mid-span is followed all the same); one that finds the ticker lease held
 * queues one for when the lease runs out; one that cannot list the Clusters retries after
 * RETRY_MS, unless the answer was one no retry changes (403); a seed without Clusters queues nothing, nor does the invocation that sees the last
 * Cluster gone. Which events start an invocation. Embedded API server (the seed only: the probes
 * fail, which keeps the prober running) and a private redis-server. The chain's cases run in
 * order (the Cluster of the third is the one the later ones see).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { crdFiles } from '../../../shared/api/crds.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { due, pending } from '../../../shared/requeue/index.js';
import {
  createProbeTickInstance,
  FUNCTION_NAME,
  PASS_REF,
  runProbeTick,
  runProbeTickEvent,
  startsTick,
} from '../../../functions/probe-tick/handler.js';
import {
  nextInvocationAt,
  RETRY_MS,
  RUNNING_KEY,
  TICKER_KEY,
  type TickSummary,
} from '../../../functions/probe-tick/tick.js';
import type { KubeClient as Seed } from '../../../shared/kube/index.js';
import { clusterObject } from '../../support/cluster-object.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const NS = 'shoot--p--chain';
const CONFIG = `kubeConfigSecretName: dwd-api-server-probe-secret
probeInterval: 10s
initialDelay: 0s
probeTimeout: 1s
dependentResourceInfos:
  - ref: {kind: Deployment, name: kube-controller-manager, apiVersion: apps/v1}
    scaleUp: {level: 0}
    scaleDown: {level: 0}
`;

let srv: ApiServer;
let redis: TestRedis;
let client: Redis;
let dir: string;
let seed: KubeClient;
let kubeconfig: string;
const log = createLogger({ name: 'probe-tick', level: 'error' });

function instanceWith(
  span: string,
  overrides: { queuePass?: (atMs: number) => Promise<void>; seed?: Seed } = {},
): ReturnType<typeof createProbeTickInstance> {
  return createProbeTickInstance(
    {
      env: () => ({
        KUBECONFIG: kubeconfig,
        REDIS_URL: redis.url,
        CONFIG_FILE: '/c.yaml',
        PROBE_TICK_SPAN: span,
      }),
      readFile: () => Promise.resolve(CONFIG),
      log,
    },
    overrides,
  );
}

/** The queued invocations (due times, ms); every entry is the function's own pass. */
async function queued(): Promise<number[]> {
  const items = await pending(client, FUNCTION_NAME);
  expect(items.every((i) => i.kind === PASS_REF.kind && i.name === PASS_REF.name)).toBe(true);
  return items.map((i) => i.at.getTime());
}

/** What requeue-tick does when the entries are due: takes them off the queue. */
async function handOver(): Promise<void> {
  await due(client, FUNCTION_NAME, new Date(Date.now() + 3_600_000), 100);
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['seed'] });
  redis = await startRedis();
  client = new Redis(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'probe-tick-chain-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('seed').kubeconfigYaml());
  seed = createKubeClient(kubeConfigFromYaml(srv.cluster('seed').kubeconfigYaml()));
  await seed.create(GVK.Namespace, { metadata: { name: NS, labels: { 'gardener.cloud/role': 'shoot' } } });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('startsTick', () => {
  it.each([
    ['a ping', { type: 'dev.knative.sources.ping' }, true],
    ['its own requeue', { type: 'dev.landscape.requeue', target: 'probe-tick' }, true],
    ["another function's requeue", { type: 'dev.landscape.requeue', target: 'seed-autoscaler' }, false],
    ['a Cluster added', { type: 'dev.knative.apiserver.ref.add', kind: 'Cluster' }, true],
    ['a Cluster deleted', { type: 'dev.knative.apiserver.ref.delete', kind: 'Cluster' }, true],
    ['a Seed added', { type: 'dev.knative.apiserver.ref.add', kind: 'Seed' }, false],
    ['something else', { type: 'dev.example.other', kind: 'Cluster' }, false],
    ['no event at all', undefined, false],
  ])('%s: %p', (_name, ce, expected) => {
    expect(startsTick(ce)).toBe(expected);
  });
});

describe('nextInvocationAt', () => {
  const summary = (s: Partial<TickSummary>): TickSummary => ({
    ran: true,
    passes: 1,
    probes: 0,
    flowPasses: 0,
    probing: false,
    listFailed: false,
    ...s,
  });
  it.each([
    ['a prober running: at once', summary({ probing: true }), 1_000],
    ['none running: none', summary({}), undefined],
    ['the Clusters not listed: a retry', summary({ listFailed: true }), 1_000 + RETRY_MS],
    [
      'the list failed after a pass that probed: at once',
      summary({ listFailed: true, probing: true }),
      1_000,
    ],
    ['the lease held: when it runs out', summary({ ran: false, passes: 0 }), 16_000],
  ])('%s', (_name, s, expected) => {
    expect(nextInvocationAt(s, 1_000)).toBe(expected);
  });
});

describe('the chain of invocations', () => {
  it('a seed without Clusters: one invocation, nothing queued', async () => {
    const instance = instanceWith('0s');
    try {
      const summary = await runProbeTick(instance);
      expect(summary).toMatchObject({ ran: true, probing: false });
      expect(await queued()).toEqual([]);
    } finally {
      await instance.close();
    }
  });

  it('an event that starts none leaves the queue alone', async () => {
    const instance = instanceWith('0s');
    try {
      expect(await runProbeTickEvent(instance, { type: 'dev.knative.apiserver.ref.add', kind: 'Seed' })).toBe(
        undefined,
      );
      expect(await queued()).toEqual([]);
    } finally {
      await instance.close();
    }
  });

  it("a Cluster's event starts probing and queues the next invocation due at once", async () => {
    await seed.create(GVK.Cluster, clusterObject(NS, { machineControllerManagerSettings: {} }));
    const instance = instanceWith('0s');
    try {
      const before = Date.now();
      const summary = await runProbeTickEvent(instance, {
        type: 'dev.knative.apiserver.ref.add',
        kind: 'Cluster',
      });
      const after = Date.now();
      expect(summary).toMatchObject({ ran: true, probing: true, probes: 1 });
      const [at] = await queued();
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
      expect(await client.sismember(RUNNING_KEY, NS)).toBe(1);
    } finally {
      await instance.close();
    }
  });

  it('after a first pass that left a prober running, the end of the span is queued; at the end, the next at once', async () => {
    await handOver();
    const calls: number[] = [];
    const instance = instanceWith('1s', {
      queuePass: (atMs) => {
        calls.push(atMs);
        return Promise.resolve();
      },
    });
    try {
      const started = Date.now();
      const summary = await runProbeTick(instance);
      const ended = Date.now();
      expect(summary).toMatchObject({ ran: true, probing: true });
      expect(calls).toHaveLength(2);
      // the end of the span (1 s after the start), queued after the first pass
      expect(calls[0]).toBeGreaterThanOrEqual(started + 1_000);
      expect(calls[0]).toBeLessThanOrEqual(ended + 1_000);
      // the next invocation, due when this one ended: after its 1 s span
      expect(calls[1]).toBeGreaterThanOrEqual(started + 1_000);
      expect(calls[1]).toBeLessThanOrEqual(ended);
    } finally {
      await instance.close();
    }
  });

  it('the ticker lease held: nothing probed, the next invocation queued for when the lease runs out', async () => {
    await handOver();
    await client.set(TICKER_KEY, 'a-dead-invocation', 'PX', 15_000);
    const instance = instanceWith('0s');
    try {
      const before = Date.now();
      const summary = await runProbeTickEvent(instance, {
        type: 'dev.landscape.requeue',
        target: FUNCTION_NAME,
      });
      const after = Date.now();
      expect(summary).toMatchObject({ ran: false, probes: 0 });
      const [at] = await queued();
      expect(at).toBeGreaterThanOrEqual(before + 15_000);
      expect(at).toBeLessThanOrEqual(after + 15_000);
    } finally {
      await client.del(TICKER_KEY);
      await instance.close();
    }
  });

  it('the Clusters cannot be listed: a retry is queued', async () => {
    await handOver();
    const down = { list: () => Promise.reject(new Error('connection refused')) } as unknown as Seed;
    const instance = instanceWith('0s', { seed: down });
    try {
      const before = Date.now();
      const summary = await runProbeTick(instance);
      const after = Date.now();
      expect(summary).toMatchObject({ ran: true, passes: 0, listFailed: true, probing: false });
      const [at] = await queued();
      expect(at).toBeGreaterThanOrEqual(before + RETRY_MS);
      expect(at).toBeLessThanOrEqual(after + RETRY_MS);
    } finally {
      await instance.close();
    }
  });

  it('the Clusters not allowed to be listed (403): no retry (a Cluster event or the resync starts the next)', async () => {
    await handOver();
    const forbidden = Object.assign(new Error('clusters is forbidden'), { code: 403 });
    const denied = { list: () => Promise.reject(forbidden) } as unknown as Seed;
    const instance = instanceWith('0s', { seed: denied });
    try {
      const summary = await runProbeTick(instance);
      expect(summary).toMatchObject({ ran: true, passes: 0, listFailed: false, probing: false });
      expect(await queued()).toEqual([]);
    } finally {
      await instance.close();
    }
  });

  it('the Cluster deleted: the invocation that sees it removes its prober and queues nothing', async () => {
    await handOver();
    await seed.delete(GVK.Cluster, { name: NS });
    const instance = instanceWith('0s');
    try {
      const summary = await runProbeTickEvent(instance, {
        type: 'dev.knative.apiserver.ref.delete',
        kind: 'Cluster',
      });
      expect(summary).toMatchObject({ ran: true, probing: false });
      expect(await client.sismember(RUNNING_KEY, NS)).toBe(0);
      expect(await queued()).toEqual([]);
    } finally {
      await instance.close();
    }
  });
});
