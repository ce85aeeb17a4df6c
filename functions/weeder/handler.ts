/**
 * weeder: the dependency watchdog's weeder (seed 003) as a function. EndpointSlice events of the
 * configured services, from an ApiServerSource in Resource mode (a not-ready → ready transition
 * opens a `watchDuration` window and deletes their CrashLoopBackOff dependants), and its own
 * requeues (`dev.landscape.requeue`, target weeder: inside the window the dependants are listed
 * and weeded again) (./weed.ts). Other kinds (Endpoints, Pods) are ignored.
 * Config: CONFIG_FILE (the seed's weeder YAML) and REDIS_URL (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import { lazyRedis, type RedisHandle } from '../../shared/redis/index.js';
import {
  createInstance,
  eventType,
  hostKubeClient,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { EventTypes } from '../../shared/events/index.js';
import type { RecoveryAction } from './decide.js';
import { FUNCTION_NAME, loadConfig, type WeederConfig } from './config.js';
import { onEndpointSlice, onSweep, type WeedDeps } from './weed.js';

export { FUNCTION_NAME } from './config.js';
export { rememberedReadiness } from './weed.js';

type Deps = WeedDeps & { handle: RedisHandle };

export function createWeederInstance(opts: InstanceOptions = {}): FunctionInstance<WeederConfig, Deps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log }) => {
        const url = env['REDIS_URL'];
        if (!url) throw new Error('REDIS_URL is not set: the weeder keeps its watch windows in Redis');
        const handle = lazyRedis({ url, connectionName: FUNCTION_NAME });
        return {
          client: hostKubeClient(env, FUNCTION_NAME),
          redis: () => handle.get(),
          handle,
          now: () => Date.now(),
          log,
        };
      },
      close: (deps) => deps.handle.close(),
    },
    opts,
  );
}

const ACTIONS: Record<string, RecoveryAction> = { add: 'add', update: 'update', delete: 'delete' };

/** The event's action (`dev.knative.apiserver.resource.<action>`), kind and object. */
function parse(ce: unknown): { action?: RecoveryAction; kind: string; object: Record<string, unknown> } {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  const action = ACTIONS[eventType(ce).split('.').pop() ?? ''];
  const object = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>;
  const kind = typeof e.kind === 'string' ? e.kind : typeof object.kind === 'string' ? object.kind : '';
  return { action, kind, object };
}

/** A requeue of this function: the namespace and service whose window is swept again. */
function sweepOf(ce: unknown): { namespace: string; service: string } | undefined {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  if (eventType(ce) !== EventTypes.requeue || e.target !== FUNCTION_NAME) return undefined;
  const attr = (k: string): string => (typeof e[k] === 'string' ? e[k] : '');
  return { namespace: attr('namespace'), service: attr('name') };
}

/** One event; the number of pods deleted (tests). */
export async function runWeederEvent(
  instance: FunctionInstance<WeederConfig, Deps>,
  ce: unknown,
): Promise<number> {
  const r = await instance.ready();
  const sweep = sweepOf(ce);
  if (sweep) return onSweep(r.deps, r.config, sweep.namespace, sweep.service);
  const { action, kind, object } = parse(ce);
  if (!action || kind !== 'EndpointSlice') return 0;
  return onEndpointSlice(r.deps, r.config, action, object);
}

export const instance = createWeederInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const weeder = async (ce: unknown): Promise<void> => {
  await runWeederEvent(instance, ce);
};

ff.cloudEvent(FUNCTION_NAME, weeder);
ff.cloudEvent('weeder', weeder);
