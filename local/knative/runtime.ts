/**
 * The serverless runtime of the embedded landscape, Knative Serving and Eventing as `npm start`
 * runs them: Redis (REDIS_URL, or a private redis-server), the functions of every Knative Service
 * in `knative/` behind the activator, the event plane of those folders (triggers/plane: the
 * brokers and their ingress routing by the Triggers, the API-server and ping sources, the broker
 * state), and the Kubernetes objects those folders ship (created in the main cluster when missing).
 *
 * The broker ingress listens first, on loopback, and requires a bearer token (random per start
 * unless given): replicas whose K_SINK is rewritten to it get it as K_SINK_TOKEN, the sources and
 * the brokers send it when they post to the ingress, and `<stateDir>/broker.json` (mode 0600)
 * keeps it for `npm run dlq`. One BrokerFaults (off) is shared by every broker. The brokers'
 * deliveries to the activator's functions go to its pools in-process (Activator.deliveries). */
import { join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { createKubeClient, isAlreadyExists, isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import {
  BrokerFaults,
  newIngressToken,
  triggerKey,
  type BrokerMetrics,
} from '../../triggers/broker/index.js';
import { openEventPlane, type EventPlane, type OpenEventPlane } from '../../triggers/plane/index.js';
import { Activator, ApiPods, FunctionLogs, replicaEnv, type ActivatorOverrides } from '../activator/index.js';
import { bundleFunction, bundleFunctions, type BundleOptions } from '../bundle.js';
import { findBinary, redisNotInstalled, startRedis, type TestRedis } from '../redis.js';
import { loadKnative, type KnativeSet } from './manifests.js';
import { pingSpecs } from './resync-schedule.js';
import { statusRows, type FunctionRow, type TriggerCounts } from './status.js';
import { GVK } from '../../shared/api/gvk.js';

export interface RuntimeOptions {
  stateDir: string;
  knativeDirs: readonly string[];
  functionsDirs: readonly string[];
  configDir: string;
  /** The main cluster: its kubeconfig file (given to replicas) and the parsed config. */
  kubeconfigPath: string;
  kubeConfig: KubeConfig;
  /** REDIS_URL; undefined: a private redis-server. */
  redisUrl?: string;
  overrides?: ActivatorOverrides;
  /**
   * The interval of the resync PingSources (label `landscape.dev/resync`): replaces their
   * schedule (./resync-schedule.ts). Undefined: each one's own (see `embeddedSchedules`).
   */
  resyncIntervalMs?: number;
  /**
   * Run each PingSource on its `landscape.dev/embedded-schedule` (sub-minute ticks, for tests and
   * the drill) instead of its `spec.schedule` (one-minute granularity, as Knative's). Default false.
   */
  embeddedSchedules?: boolean;
  /** Print function logs on stdout too (default false: `<stateDir>/logs/<function>.log` only). */
  echoLogs?: boolean;
  /** Hears what the start is doing (bundling, Redis, the event plane); default silent. */
  progress?: (line: string) => void;
  log: Logger;
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** The broker ingress's bearer token; default a random one per start. */
  ingressToken?: string;
}

export interface Runtime {
  readonly activatorUrl: string;
  readonly ingressUrl: string;
  /** The bearer token every POST to the broker ingress must carry. */
  readonly ingressToken: string;
  /** Fault injection for every broker's deliveries to triggers (off unless set; tests only). */
  readonly brokerFaults: BrokerFaults;
  readonly redisUrl: string;
  readonly activator: Activator;
  readonly knative: KnativeSet;
  status(): Promise<FunctionRow[]>;
  /**
   * Stops every ApiServerSource and starts them again, as Knative rolls the adapter Deployment
   * (e.g. on a namespace change under a namespaceSelector): events of the time between are lost.
   * Resolves once the new sources have listed (and, as Knative's, sent nothing for what they found).
   * `downMs`: how long no adapter runs (a new adapter Pod's start-up; default 0).
   */
  restartSources(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Knative's manifests or the functions cannot run: every problem. */
export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`the serverless runtime cannot start:\n  ${problems.join('\n  ')}`);
  }
}

type Stopper = () => Promise<void>;

async function unwind(stoppers: Stopper[]): Promise<void> {
  for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  stoppers.length = 0;
}

/**
 * Every Service's bundle, built together (one esbuild run: what the functions share is parsed
 * once); every problem is listed. When the run fails, each is built alone to say which does not
 * build.
 */
async function bundles(o: RuntimeOptions, set: KnativeSet): Promise<Map<string, string>> {
  const { existsSync } = await import('node:fs');
  const entries = new Map<string, string>();
  const problems: string[] = [];
  const options: BundleOptions[] = [];
  for (const s of set.services) {
    const dir = o.functionsDirs.find((d) => existsSync(join(d, s.name, 'handler.ts')));
    if (dir === undefined)
      problems.push(
        `${s.file}: Service ${s.namespace}/${s.name}: no function ${s.name}/handler.ts in ${o.functionsDirs.join(', ')}`,
      );
    else
      options.push({
        name: s.name,
        functionsDir: dir,
        outDir: join(o.stateDir, 'functions'),
        kind: 'server',
        // names kept, whitespace and comments gone: a third smaller and an ASCII (one-byte) source
        // in every replica (local/bundle.ts BundleOptions.minify); NODE_OPTIONS=--enable-source-maps maps stacks
        minify: 'whitespace',
        cacheDir: resolve('node_modules', '.cache', 'landscape-bundles'),
      });
  }
  const together = await bundleFunctions(options, o.progress).catch(() => undefined);
  for (const b of together ?? []) entries.set(b.name, b.file);
  if (together === undefined)
    for (const b of options)
      await bundleFunction(b).then(
        (built) => entries.set(built.name, built.file),
        (err: Error) => problems.push(`function ${b.name}: does not build: ${err.message}`),
      );
  if (problems.length > 0) throw new RuntimeConfigError(problems);
  return entries;
}

async function lookup(
  client: KubeClient,
  kind: 'secret' | 'configMap',
  namespace: string,
  name: string,
  key: string,
): Promise<string | undefined> {
  try {
    if (kind === 'secret') {
      const s = await client.get<{ metadata?: object; data?: Record<string, string> }>(
        GVK.Secret,
        namespace,
        name,
      );
      const v = s.data?.[key];
      return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
    }
    const c = await client.get<{ metadata?: object; data?: Record<string, string> }>(
      GVK.ConfigMap,
      namespace,
      name,
    );
    return c.data?.[key];
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Creates what is missing; what exists is left as it is (an admin may have changed it). */
async function applyObjects(client: KubeClient, set: KnativeSet, log: Logger): Promise<void> {
  const namespaces = set.objects.filter((o) => o.kind === 'Namespace');
  const rest = set.objects.filter((o) => o.kind !== 'Namespace');
  // namespaces the manifests use without declaring them (e.g. Gardener's `garden`), which a real
  // landscape has: created first, so that a Role there is not lost
  const declared = new Set(namespaces.map((o) => (o.metadata as { name?: string } | undefined)?.name));
  const used = new Set(rest.map((o) => (o.metadata as { namespace?: string } | undefined)?.namespace));
  const implied = [...used]
    .filter((ns): ns is string => ns !== undefined && !declared.has(ns))
    .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  for (const object of [...namespaces, ...implied, ...rest]) {
    try {
      await client.objects().create(object as never);
    } catch (err) {
      if (isAlreadyExists(err)) continue;
      const meta = object.metadata as { name?: string } | undefined;
      log.warn('could not create an object of knative/', {
        kind: object.kind,
        name: meta?.name,
        error: String(err),
      });
    }
  }
}

/** The Secret `landscape-redis` (key `url`) that the Services' REDIS_URL refers to, in each namespace. */
async function redisSecrets(client: KubeClient, namespaces: ReadonlySet<string>, url: string): Promise<void> {
  for (const namespace of namespaces) {
    const data = { url: Buffer.from(url).toString('base64') };
    try {
      await client.create(GVK.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'landscape-redis', namespace },
        type: 'Opaque',
        data,
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await client.mergePatch(GVK.Secret, { namespace, name: 'landscape-redis' }, { data });
    }
  }
}

async function triggerCounts(metrics: BrokerMetrics, set: KnativeSet): Promise<Map<string, TriggerCounts>> {
  const byTrigger = new Map<string, string>();
  for (const t of set.triggers) {
    const ref = t.subscriber.ref;
    if (ref?.kind === 'Service') byTrigger.set(triggerKey(t), `${ref.namespace ?? t.namespace}/${ref.name}`);
  }
  const out = new Map<string, TriggerCounts>();
  const add = async (key: keyof TriggerCounts, counter: BrokerMetrics['delivered']): Promise<void> => {
    for (const v of (await counter.get()).values) {
      const fn = byTrigger.get(String(v.labels.trigger));
      if (fn === undefined) continue;
      const row = out.get(fn) ?? { delivered: 0, retried: 0, deadLettered: 0 };
      row[key] += v.value;
      out.set(fn, row);
    }
  };
  await add('delivered', metrics.delivered);
  await add('retried', metrics.retried);
  await add('deadLettered', metrics.deadLettered);
  return out;
}

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const set = await loadKnative(o.knativeDirs);
  if (set.problems.length > 0) throw new RuntimeConfigError(set.problems);
  o.progress?.(
    `knative: ${set.services.length} Services, ${set.triggers.length} Triggers, ${set.apiServerSources.length} ApiServerSources, ${set.pingSources.length} PingSources (${o.embeddedSchedules ? 'embedded sub-minute schedules' : 'their own schedules'})`,
  );
  // before the bundles (seconds of work): a machine without Redis is told at once
  if (!o.redisUrl && findBinary('redis-server') === undefined) throw redisNotInstalled('redis-server');
  const entries = await bundles(o, set);
  const stoppers: Stopper[] = [];
  try {
    return await assemble(o, set, entries, stoppers);
  } catch (err) {
    await unwind(stoppers);
    throw err;
  }
}

async function redis(o: RuntimeOptions, stoppers: Stopper[]): Promise<string> {
  if (o.redisUrl) return o.redisUrl;
  // the landscape's own Redis, idle most of the time: its cron once a second (see StartRedisOptions.hz)
  const server: TestRedis = await startRedis({ hz: 1 });
  stoppers.push(() => server.stop());
  return server.url;
}

async function assemble(
  o: RuntimeOptions,
  set: KnativeSet,
  entries: Map<string, string>,
  stoppers: Stopper[],
): Promise<Runtime> {
  const log = o.log;
  // kept alive: every replica start reads the Secrets and ConfigMaps of its env (lookup)
  const client = createKubeClient(o.kubeConfig, { fieldManager: 'landscape', keepAlive: true });
  const redisUrl = await redis(o, stoppers);
  o.progress?.(`redis: ${redisUrl}${o.redisUrl ? ' (REDIS_URL)' : ' (a private redis-server)'}`);
  const namespaces = new Set(set.services.map((s) => s.namespace));
  await applyObjects(client, set, log);
  await redisSecrets(client, namespaces, redisUrl);

  const registry = new Registry();
  const logs = new FunctionLogs({
    dir: join(o.stateDir, 'logs'),
    echo: o.echoLogs === true ? process.stdout : null,
  });
  stoppers.push(() => logs.close());
  // the ingress listens first: its URL is every replica's K_SINK; the plane starts once the
  // activator, where Service refs go, has its own
  const token = o.ingressToken || newIngressToken();
  const open = await openEventPlane({ ingressToken: token });
  stoppers.push(() => open.close());
  const ingress = { url: open.ingressUrl, token };
  const activator = await startActivator({ o, set, entries, ingress, client, registry, logs, stoppers });
  for (const ns of namespaces) await activator.pods.ensureNamespace(ns);
  await activator.pods.watch([...namespaces]);
  stoppers.push(() => activator.pods.stop());

  const faults = new BrokerFaults();
  o.progress?.(`activator: ${activator.activator.url}; starting the event plane (brokers, sources)`);
  const plane = await startPlane(o, set, open, activator.activator, registry, faults);
  stoppers.push(() => plane.stop());
  await plane.ready();
  o.progress?.(`event plane: ready (broker ingress ${open.ingressUrl})`);
  return runtime(plane, activator.activator, set, redisUrl, faults, stoppers);
}

interface ActivatorParts {
  o: RuntimeOptions;
  set: KnativeSet;
  entries: Map<string, string>;
  ingress: { url: string; token: string };
  client: KubeClient;
  registry: Registry;
  logs: FunctionLogs;
  stoppers: Stopper[];
}

/** The activator, its replicas given the ingress (K_SINK, K_SINK_TOKEN), and the Pods of the replicas. */
async function startActivator(p: ActivatorParts): Promise<{ activator: Activator; pods: ApiPods }> {
  const { o, client } = p;
  const pods: ApiPods = new ApiPods({
    kubeConfig: o.kubeConfig,
    log: o.log,
    onDeleted: (ns, name) => activator.podDeleted(ns, name),
  });
  const activator: Activator = new Activator({
    services: p.set.services,
    entries: p.entries,
    envFor: (service, podName) =>
      replicaEnv(service, {
        podName,
        ingressUrl: p.ingress.url,
        ingressToken: p.ingress.token,
        activatorUrl: activator.url,
        configDir: o.configDir,
        kubeconfig: o.kubeconfigPath,
        hostEnv: o.hostEnv ?? process.env,
        lookup: (kind, ns, name, key) => lookup(client, kind, ns, name, key),
      }),
    onLine: (service, pod, stream, line) => p.logs.line(service.name, pod, stream, line),
    pods,
    overrides: o.overrides,
    registry: p.registry,
    log: (level, msg, fields) => o.log[level](msg, fields),
    // no --enable-source-maps by default: it doubles a replica's start and memory on a 5 MB bundle;
    // NODE_OPTIONS=--enable-source-maps (passed through to replicas) turns it on
  });
  await activator.start();
  p.stoppers.push(() => activator.stop());
  return { activator, pods };
}

/** The event plane of every knative/ folder: Service refs go to the activator. */
function startPlane(
  o: RuntimeOptions,
  set: KnativeSet,
  open: OpenEventPlane,
  activator: Activator,
  registry: Registry,
  faults: BrokerFaults,
): Promise<EventPlane> {
  return open.start({
    manifests: set,
    functionUrl: (namespace, name) => activator.urlFor(namespace, name),
    fetch: activator.deliveries(),
    pingSources: (resolve) => {
      const ping = pingSpecs(set, resolve, o.resyncIntervalMs, { embedded: o.embeddedSchedules === true });
      if (ping.problems.length > 0) throw new RuntimeConfigError(ping.problems);
      return ping.specs;
    },
    pingAllowSeconds: true,
    kubeConfig: o.kubeConfig,
    log: o.log,
    sourceLog: o.log.child('apiserver-source'),
    stateDir: o.stateDir,
    registry,
    faults, // test-only: refuseIngress (the drill's sink-down)
  });
}

function runtime(
  plane: EventPlane,
  activator: Activator,
  set: KnativeSet,
  redisUrl: string,
  faults: BrokerFaults,
  stoppers: Stopper[],
): Runtime {
  return {
    activatorUrl: activator.url,
    ingressUrl: plane.ingressUrl,
    ingressToken: plane.ingressToken ?? '',
    brokerFaults: faults,
    redisUrl,
    activator,
    knative: set,
    status: async () => statusRows(activator.status(), await triggerCounts(plane.metrics, set)),
    restartSources: (downMs = 0) => plane.restartSources(downMs),
    stop: () => {
      activator.quiesce();
      return unwind(stoppers);
    },
  };
}
