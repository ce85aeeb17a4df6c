/**
 * probe-tick queues its own next invocation (issue 16: no PingSource a minute): an invocation whose
 * last pass left a prober running queues the next one due at once (requeue-tick hands it over);
 * one that starts while probers have state first queues one due at the end of its span (an
 * invocation that dies mid-span is followed all the same); a seed without Clusters queues nothing,
 * and the chain ends one invocation after the last Cluster is gone. Which events start an
 * invocation. Embedded API server (the seed only: the probes fail, which keeps the prober
 * running) and a private redis-server.
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
import { RUNNING_KEY } from '../../../functions/probe-tick/tick.js';
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
const log = createLogger({ name: 'probe-tick', level: 'silent' });

function cluster(): Record<string, unknown> {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'Cluster',
    metadata: { name: NS },
    spec: {
      cloudProfile: { raw: {} },
      seed: { raw: {} },
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: 'chain', namespace: 'garden-p' },
        spec: {
          region: 'local',
          hibernation: { enabled: false },
          provider: { type: 'local', workers: [{ name: 'pool', machineControllerManagerSettings: {} }] },
        },
        status: { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
      },
    },
  };
}

function instanceWith(
  span: string,
  queuePass?: (atMs: number) => Promise<void>,
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
    queuePass ? { queuePass } : {},
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
    await seed.create(GVK.Cluster, cluster());
    const instance = instanceWith('0s');
    try {
      const summary = await runProbeTickEvent(instance, {
        type: 'dev.knative.apiserver.ref.add',
        kind: 'Cluster',
      });
      expect(summary).toMatchObject({ ran: true, probing: true, probes: 1 });
      const after = Date.now();
      const [at, ...rest] = await queued();
      expect(rest).toEqual([]);
      expect(at).toBeLessThanOrEqual(after);
      expect(await client.sismember(RUNNING_KEY, NS)).toBe(1);
    } finally {
      await instance.close();
    }
  });

  it('an invocation that starts while probers have state queues the end of its span first, then the next at once', async () => {
    await handOver();
    const calls: number[] = [];
    const instance = instanceWith('1s', (atMs) => {
      calls.push(atMs);
      return Promise.resolve();
    });
    try {
      const started = Date.now();
      const summary = await runProbeTick(instance);
      const ended = Date.now();
      expect(summary).toMatchObject({ ran: true, probing: true });
      expect(calls).toHaveLength(2);
      // the end of the span, queued before the first pass
      expect(calls[0]).toBeGreaterThanOrEqual(started + 1_000);
      expect(calls[0]).toBeLessThanOrEqual(ended + 1_000);
      // the next invocation, due when this one ended
      expect(calls[1]).toBeGreaterThanOrEqual(calls[0] - 1_000);
      expect(calls[1]).toBeLessThanOrEqual(ended);
    } finally {
      await instance.close();
    }
  });

  it('the Cluster deleted: the invocation that sees it queues only its span end, the next one nothing', async () => {
    await seed.delete(GVK.Cluster, undefined, NS);
    const instance = instanceWith('0s');
    try {
      const first = await runProbeTickEvent(instance, {
        type: 'dev.knative.apiserver.ref.delete',
        kind: 'Cluster',
      });
      expect(first).toMatchObject({ ran: true, probing: false });
      // its prober still had state when it started: the entry queued then is handed over once more
      expect(await queued()).toHaveLength(1);
      expect(await client.sismember(RUNNING_KEY, NS)).toBe(0);
      await handOver();
      const second = await runProbeTickEvent(instance, {
        type: 'dev.landscape.requeue',
        target: FUNCTION_NAME,
      });
      expect(second).toMatchObject({ ran: true, probing: false });
      expect(await queued()).toEqual([]);
    } finally {
      await instance.close();
    }
  });
});
