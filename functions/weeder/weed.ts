/**
 * The weeder's I/O around shared/watchdog/weeder.ts: the readiness last seen per EndpointSlice /
 * Endpoints and the open windows per service live in Redis (a window is a key that expires with
 * it); a recovery opens the window and deletes the service's crash-looping dependants now; a Pod
 * event inside a window deletes that pod when it crash-loops. Nothing outside a window is touched.
 */
import { GVK } from '../../shared/api/gvk.js';
import { keyspace, type Redis } from '../../shared/cache/index.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { selectorString } from '../../triggers/apiserver-source/selector.js';
import {
  decidePodEvent,
  decideReadiness,
  isEndpointsReady,
  isSliceReady,
  podsToWeed,
  serviceOfSlice,
  type EndpointsLike,
  type EndpointSliceLike,
  type PodLike,
  type RecoveryAction,
  type RememberedReadiness,
  type WeedWindow,
} from '../../shared/watchdog/weeder.js';
import type { WeederConfig } from './config.js';

const KEYS = keyspace('weeder');
/** How long the last seen readiness is kept without a new event. */
const READY_TTL_S = 7 * 24 * 3600;

export interface WeedDeps {
  client: KubeClient;
  redis: () => Promise<Redis>;
  now: () => number;
  log: Logger;
}

type Pod = PodLike & { metadata: { name: string; namespace: string } };

async function deletePod(deps: WeedDeps, pod: Pod, service: string): Promise<boolean> {
  try {
    await deps.client.delete(GVK.Pod, { namespace: pod.metadata.namespace, name: pod.metadata.name });
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
  deps.log.info('deleted pod in CrashLoopBackOff', {
    namespace: pod.metadata.namespace,
    pod: pod.metadata.name,
    service,
  });
  return true;
}

/** Deletes the service's crash-looping dependants in the namespace; how many were deleted. */
async function sweep(
  deps: WeedDeps,
  config: WeederConfig,
  namespace: string,
  service: string,
): Promise<number> {
  let deleted = 0;
  for (const selector of config.servicesAndDependantSelectors[service]?.podSelectors ?? []) {
    const pods = await deps.client.list<Pod>(GVK.Pod, namespace, { labelSelector: selectorString(selector) });
    for (const pod of podsToWeed(pods.items, [selector])) if (await deletePod(deps, pod, service)) deleted++;
  }
  return deleted;
}

type EndpointsKind = 'EndpointSlice' | 'Endpoints';

/** The object's namespace, name, service and readiness; undefined when it is not a configured service's. */
function endpointsState(
  config: WeederConfig,
  object: EndpointSliceLike | EndpointsLike,
  kind: EndpointsKind,
): { namespace: string; name: string; service: string; ready: boolean } | undefined {
  const { namespace, name } = object.metadata ?? {};
  if (typeof namespace !== 'string' || typeof name !== 'string' || !namespace || !name) return undefined;
  const slice = kind === 'EndpointSlice';
  const service = slice ? serviceOfSlice(object) : name;
  if (!service || !config.servicesAndDependantSelectors[service]) return undefined;
  return { namespace, name, service, ready: slice ? isSliceReady(object) : isEndpointsReady(object) };
}

/** Compare-and-set of one key: ARGV expected ('' = absent), next ('' = delete), TTL in seconds. */
const CAS = `local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1`;
const CAS_ATTEMPTS = 10;

/** What is remembered (JSON; the older 'true' / 'false' form reads as handled). */
function parseRemembered(text: string | null): RememberedReadiness | undefined {
  if (text === null) return undefined;
  if (text === 'true' || text === 'false') return { ready: text === 'true', handled: true };
  try {
    const v = JSON.parse(text) as RememberedReadiness;
    return typeof v.ready === 'boolean' ? v : undefined;
  } catch {
    return undefined;
  }
}

function resourceVersion(object: EndpointSliceLike | EndpointsLike): number | undefined {
  const rv = (object.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === 'string' && /^\d{1,15}$/.test(rv) ? Number(rv) : undefined;
}

/**
 * Remembers the readiness of the object (atomically: concurrent events of the same object retry)
 * and tells whether this event shows a recovery (shared/watchdog/weeder.ts decideReadiness).
 */
async function rememberReadiness(
  redis: Redis,
  key: string,
  event: Parameters<typeof decideReadiness>[1],
): Promise<boolean> {
  for (let i = 0; i < CAS_ATTEMPTS; i++) {
    const current = await redis.get(key);
    const d = decideReadiness(parseRemembered(current), event);
    if (d.next === undefined) return d.recovery;
    const next = d.next === null ? '' : JSON.stringify(d.next);
    if (Number(await redis.eval(CAS, 1, key, current ?? '', next, READY_TTL_S)) === 1) return d.recovery;
  }
  throw new Error(`readiness of ${key}: ${CAS_ATTEMPTS} concurrent updates in a row, retry the event`);
}

/** An EndpointSlice (or Endpoints) event: remember its readiness; on a recovery open the window and sweep. */
export async function onEndpoints(
  deps: WeedDeps,
  config: WeederConfig,
  action: RecoveryAction,
  object: EndpointSliceLike | EndpointsLike,
  kind: EndpointsKind,
): Promise<number> {
  const state = endpointsState(config, object, kind);
  if (!state) return 0;
  const { namespace, name, service, ready } = state;
  const redis = await deps.redis();
  const rv = resourceVersion(object);
  const recovered = await rememberReadiness(redis, KEYS.key('ready', kind, namespace, name), {
    action,
    rv,
    ready,
  });
  const windowKey = KEYS.key('window', namespace, service);
  if (!recovered) {
    // ready inside an open window: the recovery's event delivered again after its sweep failed
    // half-way (the readiness was remembered already), so the sweep is redone
    if (!ready || action === 'delete' || (await redis.get(windowKey)) === null) return 0;
    return sweep(deps, config, namespace, service);
  }
  const window = config.watchDuration;
  await redis.set(windowKey, String(deps.now() + window), 'PX', window);
  deps.log.info('service recovered: weeding its CrashLoopBackOff dependants', {
    namespace,
    service,
    watchDurationMs: window,
  });
  return sweep(deps, config, namespace, service);
}

/** A Pod event: deleted when it crash-loops inside an open window of a service that selects it. */
export async function onPod(deps: WeedDeps, config: WeederConfig, pod: Pod): Promise<boolean> {
  const namespace = pod.metadata.namespace;
  const services = Object.keys(config.servicesAndDependantSelectors);
  const redis = await deps.redis();
  const untils =
    services.length > 0 ? await redis.mget(services.map((s) => KEYS.key('window', namespace, s))) : [];
  const windows: WeedWindow[] = services.flatMap((service, i) =>
    untils[i] ? [{ namespace, service, until: Number(untils[i]) }] : [],
  );
  const decision = decidePodEvent(
    pod,
    windows,
    (s) => config.servicesAndDependantSelectors[s]?.podSelectors,
    deps.now(),
  );
  return decision.delete ? deletePod(deps, pod, decision.services.join(',')) : false;
}
