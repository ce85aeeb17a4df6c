/**
 * The weeder's I/O around ./decide.ts: the readiness last seen per EndpointSlice and
 * the open windows per service live in Redis (a window is a key that expires with it); a recovery
 * opens the window, deletes the service's crash-looping dependants now (listing the pods its
 * podSelectors pick) and requeues itself (shared/requeue: the requeue ticker emits
 * `dev.landscape.requeue` for `weeder` when due), and each requeue inside the window lists them
 * again and requeues the next sweep, until the window closes. Nothing outside a window is touched.
 */
import { GVK } from '../../shared/api/gvk.js';
import { evalScript, keyspace, type Redis } from '../../shared/redis/index.js';
import { requeue } from '../../shared/requeue/index.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { labelSelectorString } from '@landscape/apimachinery';
import {
  decideReadiness,
  isSliceReady,
  nextSweepAt,
  podsToWeed,
  serviceOfSlice,
  type EndpointSliceLike,
  type PodLike,
  type RecoveryAction,
  type RememberedReadiness,
} from './decide.js';
import { FUNCTION_NAME, type WeederConfig } from './config.js';

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
    const pods = await deps.client.list<Pod>(GVK.Pod, namespace, {
      labelSelector: labelSelectorString(selector),
    });
    for (const pod of podsToWeed(pods.items, [selector])) if (await deletePod(deps, pod, service)) deleted++;
  }
  return deleted;
}

/** Where the requeues of a window's sweeps are kept: the service named, in its namespace. */
const SWEEP_KIND = 'Service';

/** The slice's namespace, name, service and readiness; undefined when it is not a configured service's. */
function sliceState(
  config: WeederConfig,
  object: EndpointSliceLike,
): { namespace: string; name: string; service: string; ready: boolean } | undefined {
  const { namespace, name } = object.metadata ?? {};
  if (typeof namespace !== 'string' || typeof name !== 'string' || !namespace || !name) return undefined;
  const service = serviceOfSlice(object);
  if (!service || !config.servicesAndDependantSelectors[service]) return undefined;
  return { namespace, name, service, ready: isSliceReady(object) };
}

/** The end of the service's open window (ms), undefined when none is open. */
async function windowUntil(redis: Redis, namespace: string, service: string): Promise<number | undefined> {
  const v = await redis.get(KEYS.key('window', namespace, service));
  return v === null || !Number.isFinite(Number(v)) ? undefined : Number(v);
}

/** Requeues the window's next sweep when it is still open then (idempotent: the earliest wins). */
async function scheduleSweep(
  deps: WeedDeps,
  config: WeederConfig,
  redis: Redis,
  at: { namespace: string; service: string; until: number | undefined },
): Promise<void> {
  const due = nextSweepAt(deps.now(), at.until, config.watchDuration);
  if (due === undefined) return;
  const ref = { kind: SWEEP_KIND, namespace: at.namespace, name: at.service };
  await requeue(redis, { target: FUNCTION_NAME, ...ref, at: new Date(due) });
}

/** Compare-and-set of one key: ARGV expected ('' = absent), next ('' = delete), TTL in seconds. */
const CAS = `local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1`;
const CAS_ATTEMPTS = 10;

/**
 * The readiness the weeder remembers of an EndpointSlice (undefined: none): what it will compare the
 * slice's next event with. Read by the drill (local/drill/work/weeder.ts) to know the weeder has
 * seen a slice before the slice recovers.
 */
export async function rememberedReadiness(
  redis: Redis,
  namespace: string,
  name: string,
): Promise<RememberedReadiness | undefined> {
  return parseRemembered(await redis.get(KEYS.key('ready', 'EndpointSlice', namespace, name)));
}

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

function resourceVersion(object: EndpointSliceLike): number | undefined {
  const rv = (object.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === 'string' && /^\d{1,15}$/.test(rv) ? Number(rv) : undefined;
}

/**
 * Remembers the readiness of the object (atomically: concurrent events of the same object retry)
 * and tells whether this event shows a recovery (./decide.ts decideReadiness).
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
    if (Number(await evalScript(redis, CAS, [key], [current ?? '', next, READY_TTL_S])) === 1)
      return d.recovery;
  }
  throw new Error(`readiness of ${key}: ${CAS_ATTEMPTS} concurrent updates in a row, retry the event`);
}

/**
 * An EndpointSlice event: remember its readiness; on a recovery open the window, requeue its next
 * sweep and sweep now.
 */
export async function onEndpointSlice(
  deps: WeedDeps,
  config: WeederConfig,
  action: RecoveryAction,
  object: EndpointSliceLike,
): Promise<number> {
  const state = sliceState(config, object);
  if (!state) return 0;
  const { namespace, name, service, ready } = state;
  const redis = await deps.redis();
  const rv = resourceVersion(object);
  const recovered = await rememberReadiness(redis, KEYS.key('ready', 'EndpointSlice', namespace, name), {
    action,
    rv,
    ready,
  });
  if (!recovered) {
    // ready inside an open window: the recovery's event delivered again after its sweep failed
    // half-way (the readiness was remembered already), so the sweep is redone
    const until = await windowUntil(redis, namespace, service);
    if (!ready || action === 'delete' || until === undefined) return 0;
    await scheduleSweep(deps, config, redis, { namespace, service, until });
    return sweep(deps, config, namespace, service);
  }
  const window = config.watchDuration;
  const until = deps.now() + window;
  await redis.set(KEYS.key('window', namespace, service), String(until), 'PX', window);
  deps.log.info('service recovered: weeding its CrashLoopBackOff dependants', {
    namespace,
    service,
    watchDurationMs: window,
  });
  await scheduleSweep(deps, config, redis, { namespace, service, until });
  return sweep(deps, config, namespace, service);
}

/**
 * A requeued sweep (`dev.landscape.requeue` for `weeder`, naming the service): inside its open
 * window, the next sweep is requeued first (a sweep that fails is retried by the broker, the next
 * one is due anyway), then the dependants are listed and the crash-looping ones deleted; after the
 * window nothing is done.
 */
export async function onSweep(
  deps: WeedDeps,
  config: WeederConfig,
  namespace: string,
  service: string,
): Promise<number> {
  if (!namespace || !config.servicesAndDependantSelectors[service]) return 0;
  const redis = await deps.redis();
  const until = await windowUntil(redis, namespace, service);
  if (until === undefined || until <= deps.now()) return 0;
  await scheduleSweep(deps, config, redis, { namespace, service, until });
  return sweep(deps, config, namespace, service);
}
