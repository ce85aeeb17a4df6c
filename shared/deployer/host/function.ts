/**
 * A deployer as a function: the configuration every deployer function shares, the per-instance
 * wiring (host cluster client, Redis, SyncObject locker with Pod or heartbeat liveness, requeue,
 * Target clients, hooks), and the CloudEvent handler that runs one contract step
 * (./run.ts) for a `dev.landscape.deployitem.reconcile` event of its `deployertype` or a
 * `dev.landscape.requeue` event for itself.
 *
 * Config (CONFIG_FILE, YAML; REDIS_URL and LOG_LEVEL override):
 * ```yaml
 * identity: deployer-mock     # status.deployer.identity (default: the function name)
 * version: 0.1.0              # status.deployer.version
 * lockRetryDelay: 2s          # look again this much later when another replica holds the lock
 * continuousReconcile: true   # run the continuous-reconcile hook
 * workers: {concurrency: 10, instances: 1}   # for the "worker threads" log (70 % of the product)
 * redisUrl: redis://...       # usually from REDIS_URL
 * ```
 */
import { randomUUID } from 'node:crypto';
import * as z from '../../config/zod.js';
import { keyspace, lazyRedis, RedisUnavailableError, type RedisHandle } from '../../redis/index.js';
import {
  durationSchema,
  functionConfigSchema,
  loadConfigWith,
  withLogLevel,
  type ConfigResult,
  type EnvOverride,
} from '../../config/index.js';
import { EventTypes } from '../../events/index.js';
import {
  createInstance,
  eventObjectRef,
  eventType,
  hostKubeClient,
  type Env,
  type FunctionInstance,
  type InstanceOptions,
} from '../../function/index.js';
import { createKubeClient, kubeConfigForTarget, type KubeClient } from '../../kube/index.js';
import { createLocker, livenessFor, lockOwner } from '../../lock/index.js';
import type { Logger } from '../../log/index.js';
import { createWorkerCounter, type WorkerCounter } from '../../monitoring/index.js';
import { requeue } from '../../requeue/index.js';
import { continuousReconcileHookSetup, registerHookSetup, type ReconcileHooks } from '../index.js';
import type { DeployerPlugin } from '../types.js';
import { eventDeployItem } from '../items.js';
import { JobMemo, type FinishedJobs } from './jobs.js';
import { reconcileItem, type ItemRef, type RunOutcome, type RuntimeDeps } from './run.js';

const duration = durationSchema;

export const DeployerConfigSchema = functionConfigSchema({
  /** Default: the function name. */
  identity: z.string().min(1).optional(),
  version: z.string().min(1).default('0.1.0'),
  lockRetryDelay: duration.default(2000),
  continuousReconcile: z.boolean().default(true),
  workers: z
    .strictObject({
      concurrency: z.number().int().min(1).default(10),
      instances: z.number().int().min(1).default(1),
    })
    .default({ concurrency: 10, instances: 1 }),
  redisUrl: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
});
export type DeployerConfig = z.output<typeof DeployerConfigSchema>;

export const DEPLOYER_ENV_OVERRIDES = withLogLevel({
  REDIS_URL: { key: 'redisUrl' },
} as const satisfies Record<string, EnvOverride>);

export function loadDeployerConfig(fileText: string | undefined, env: Env): ConfigResult<DeployerConfig> {
  return loadConfigWith(DeployerConfigSchema, DEPLOYER_ENV_OVERRIDES, fileText, env);
}

export interface DeployerInstanceDeps {
  runtime: RuntimeDeps;
  redis: RedisHandle;
  workers: WorkerCounter;
}

/**
 * The requeue; when Redis is down the error is thrown (the broker redelivers the event with its
 * backoff: slower, still correct) and the instance says so once, not on every event.
 */
let saidRedisDown = false;
async function requeueOrSay(
  redis: RedisHandle,
  log: Logger,
  item: Parameters<typeof requeue>[1],
): Promise<void> {
  try {
    await requeue(await redis.get(), item);
    saidRedisDown = false;
  } catch (err) {
    if (err instanceof RedisUnavailableError && !saidRedisDown) {
      saidRedisDown = true;
      log.warn('Redis is unavailable: looks again later are left to the broker redelivering the event', {
        error: err.message,
      });
    }
    throw err;
  }
}

/** How long the replicas remember a finished job: the events of its writes arrive within seconds. */
const FINISHED_JOB_TTL_S = 600;

/** The jobs finished by any replica of `functionName`, in Redis (`landscape:<fn>-jobs:<uid>` = jobID). */
function finishedJobs(redis: RedisHandle, functionName: string): FinishedJobs {
  const keys = keyspace(`${functionName}-jobs`);
  return {
    has: async (uid, jobID) => (await (await redis.get()).get(keys.key(uid))) === jobID,
    add: async (uid, jobID) => {
      await (await redis.get()).set(keys.key(uid), jobID, 'EX', FINISHED_JOB_TTL_S);
    },
  };
}

function hooksFor(config: DeployerConfig): ReconcileHooks {
  return config.continuousReconcile ? registerHookSetup({}, continuousReconcileHookSetup()) : {};
}

function setup(
  functionName: string,
  plugin: DeployerPlugin,
  config: DeployerConfig,
  env: Env,
  log: Logger,
  nowMs: () => number,
): DeployerInstanceDeps {
  const host = hostKubeClient(env, functionName);
  const redis = lazyRedis({ url: config.redisUrl, connectionName: functionName });
  const who = lockOwner(env);
  const workers = createWorkerCounter({ redis, instance: who.owner, log });
  const locker = createLocker({
    client: host,
    prefix: plugin.name,
    owner: who.owner,
    liveness: livenessFor(who, { client: host, redis, log }),
    log,
    // the SyncObjects this instance wrote are updated on their resourceVersion without a read
    writeFirst: true,
  });
  const runtime: RuntimeDeps = {
    plugin,
    host,
    locker,
    requeue: async (ref: ItemRef, afterMs: number): Promise<void> => {
      const at = new Date(nowMs() + Math.max(0, afterMs));
      await requeueOrSay(redis, log, {
        target: functionName,
        kind: 'DeployItem',
        namespace: ref.namespace,
        name: ref.name,
        at,
      });
    },
    targetClient: async (target): Promise<KubeClient> =>
      createKubeClient(await kubeConfigForTarget(target, { readSecret: host.secretReader() }), {
        fieldManager: functionName,
        // as client-go: a target cluster's Retry-After is honoured, a failed GET sent again
        retryTransient: true,
      }),
    hooks: hooksFor(config),
    deployer: { name: functionName, identity: config.identity ?? functionName, version: config.version },
    now: () => new Date(nowMs()),
    newId: randomUUID,
    log,
    lockRetryMs: config.lockRetryDelay,
    jobs: new JobMemo(finishedJobs(redis, functionName)),
    inFlight: async (): Promise<() => Promise<void>> => {
      const entry = await workers.startReconcile({
        controller: functionName,
        kind: 'DeployItem',
        instances: config.workers.instances,
        concurrency: config.workers.concurrency,
      });
      return () => entry.done();
    },
  };
  return { runtime, redis, workers };
}

export function createDeployerInstance(
  functionName: string,
  plugin: DeployerPlugin,
  opts: InstanceOptions = {},
): FunctionInstance<DeployerConfig, DeployerInstanceDeps> {
  return createInstance(
    {
      name: functionName,
      loadConfig: loadDeployerConfig,
      setup: ({ config, env, log }) => setup(functionName, plugin, config, env, log, opts.nowMs ?? Date.now),
      close: async (deps) => {
        deps.workers.stop();
        await deps.redis.close();
      },
    },
    opts,
  );
}

/** Which events are this deployer's: its reconcile events, and requeues addressed to it. */
export function isDeployerEvent(ce: unknown, functionName: string, plugin: DeployerPlugin): boolean {
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Record<string, unknown>;
  const type = eventType(ce);
  if (type === EventTypes.deployItemReconcile) return e.deployertype === plugin.name;
  if (type === EventTypes.requeue) return e.target === functionName;
  return false;
}

/** One event through the deployer: the outcome (tests, logs); undefined when the event is not its own. */
export async function runDeployerEvent(
  functionName: string,
  plugin: DeployerPlugin,
  instance: FunctionInstance<DeployerConfig, DeployerInstanceDeps>,
  ce: unknown,
): Promise<RunOutcome | undefined> {
  const r = await instance.ready();
  const ref = eventObjectRef(ce, { namespaced: true });
  if (!isDeployerEvent(ce, functionName, plugin) || !ref) {
    r.log.warn('not an event for this deployer; ignored', { type: eventType(ce) });
    return undefined;
  }
  // a reconcile event of the responsibility check may carry the item (from a Resource-mode event)
  const carried = eventType(ce) === EventTypes.deployItemReconcile ? eventDeployItem(ce, ref) : undefined;
  return reconcileItem(r.deps.runtime, ref, carried);
}

/** The CloudEvent handler of a deployer function (returns nothing: a body would be a reply event; a throw means retry). */
export function deployerHandler(
  functionName: string,
  plugin: DeployerPlugin,
  instance: FunctionInstance<DeployerConfig, DeployerInstanceDeps>,
): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    await runDeployerEvent(functionName, plugin, instance, ce);
  };
}
