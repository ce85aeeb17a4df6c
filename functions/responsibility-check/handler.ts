/**
 * responsibility-check: for every DeployItem event of the API-server source (Resource mode: from
 * the object it carries, which the reconcile events carry on; Reference mode: read), and for every
 * DeployItem on a resync (the ping of the deployers' resync PingSource), first hands out the job
 * the item is due (`handOutJobs`, the Landscaper's side of the contract, ./jobs.ts), then decides
 * which configured deployers are responsible (./check.ts) and sends
 * `dev.landscape.deployitem.reconcile` for each: the first as the answer to the delivery where the
 * broker takes replies (`reply`, default on; shared/events/reply.ts), any other POSTed to K_SINK.
 *
 * One function for both, so that each DeployItem event is delivered once, not once to a job
 * trigger and once to the check (until stop 33 they were two functions, each subscribed to every
 * event: most deliveries found nothing to do). An event whose item gets a write (annotations or a
 * new job) is checked no further: that write's own event brings the next version, checked then.
 *
 * Resync: with the job hand-out a full, paged list (the job decision needs the status), each item
 * decided and checked from the listed object; without it a metadata-only list, checked from the
 * listed annotations. Config: CONFIG_FILE (YAML) with LOG_LEVEL, K_SINK, K_SINK_TOKEN, REDIS_URL
 * (the open jobs sent, remembered for every instance: ./sent.ts) and HAND_OUT_JOBS overrides
 * (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import {
  BoundedSet,
  deployItemEventHandler,
  forEachFullDeployItem,
  versionKey,
  type ItemKey,
} from '../../shared/deployer/items.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import {
  emitOrThrow,
  offerReply,
  replyingFunction,
  withoutReplies,
  type FetchLike,
} from '../../shared/events/index.js';
import {
  createKubeInstance,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { checkEvent, checkListedItem, resyncAll, type CheckDeps, type TargetCache } from './check.js';
import { FUNCTION_NAME, loadConfig, type CheckConfig } from './config.js';
import { triggerEvent, triggerListed, type TriggerDeps, type TriggerOutcome } from './jobs.js';
import { localSentJobs, sharedSentJobs } from './sent.js';
import { lazyRedis, type RedisHandle } from '../../shared/redis/index.js';

export { FUNCTION_NAME } from './config.js';

export type DispatchDeps = CheckDeps & TriggerDeps & { redis?: RedisHandle };

export function createCheckInstance(
  opts: InstanceOptions & { fetch?: FetchLike } = {},
): FunctionInstance<CheckConfig, DispatchDeps> {
  return createKubeInstance(
    FUNCTION_NAME,
    loadConfig,
    ({ config, log }) => {
      const redis = config.redisUrl
        ? lazyRedis({ url: config.redisUrl, connectionName: FUNCTION_NAME })
        : undefined;
      return {
        send: async (event): Promise<void> => {
          // the answer to the broker's delivery carries it where the broker takes replies
          if (config.reply && offerReply(event)) return;
          await emitOrThrow(event, {
            sink: config.sink,
            timeoutMs: config.emitTimeout,
            ...(config.sinkToken ? { token: config.sinkToken } : {}),
            ...(opts.fetch ? { fetch: opts.fetch } : {}),
          });
        },
        newId: randomUUID,
        sentJobs: redis ? sharedSentJobs(redis, FUNCTION_NAME, log) : localSentJobs(),
        contexts: new Set<string>(),
        superseded: new BoundedSet(),
        ...(redis ? { redis } : {}),
      };
    },
    opts,
    async (deps) => {
      await deps.redis?.close();
    },
  );
}

/** True when the job hand-out wrote the item: the write's own event brings the version to check. */
function wrote(outcome: TriggerOutcome): boolean {
  return outcome !== 'unchanged' && outcome !== 'gone';
}

/** One event's item: the job it is due, else the responsibility check; the deployers it was sent to. */
export async function dispatchEvent(
  deps: DispatchDeps,
  config: CheckConfig,
  ref: ItemKey,
  item: DeployItem | undefined,
  /** The event's id: a redelivery of the event that sent an open job may send it again. */
  eventId = '',
): Promise<string[]> {
  if (config.handOutJobs) {
    // a version this instance wrote over: the newer version's own event follows
    if (item && deps.superseded?.has(versionKey(item))) return [];
    const outcome = await triggerEvent(deps, config, ref, item);
    if (outcome === 'gone' || wrote(outcome)) return [];
  }
  return checkEvent(deps, config, ref, item, eventId);
}

/**
 * One resync pass; resolves with how many items were looked at. One item's failing job write (a
 * Context create refused, a 5xx) stops neither another item's job nor any check: it is logged,
 * the item is checked as listed, and the pass rejects at its end with the first such error (the
 * ping is retried).
 */
export async function dispatchAll(deps: DispatchDeps, config: CheckConfig, concurrency = 8): Promise<number> {
  if (!config.handOutJobs) return resyncAll(deps, config, concurrency);
  const targets: TargetCache = new Map();
  let failed: Error | undefined;
  const looked = await forEachFullDeployItem(
    deps.client,
    async (item) => {
      const meta = item.metadata ?? {};
      const key = { namespace: meta.namespace ?? '', name: meta.name ?? '' };
      let outcome: TriggerOutcome = 'unchanged';
      try {
        outcome = await triggerListed(deps, config, item);
      } catch (err) {
        failed ??= err instanceof Error ? err : new Error(String(err));
        deps.log.warn('resync: the job hand-out failed; the item is checked as listed', {
          deployItem: `${key.namespace}/${key.name}`,
          error: String(err),
        });
      }
      if (outcome === 'gone' || wrote(outcome)) return;
      await checkListedItem(deps, config, { ...key, metadata: meta }, targets);
    },
    concurrency,
  );
  if (failed) throw failed;
  return looked;
}

export function checkHandler(
  instance: FunctionInstance<CheckConfig, DispatchDeps>,
): (ce: unknown) => Promise<void> {
  return deployItemEventHandler(
    instance,
    (r, ref, item, id) => dispatchEvent(r.deps, r.config, ref, item, id),
    // a resync pass sends its events itself: the ping's answer carries none
    (r) => withoutReplies(() => dispatchAll(r.deps, r.config)),
  );
}

// its reconcile events go back as the answer to the delivery (shared/events/reply.ts)
replyingFunction();

export const instance = createCheckInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const responsibilityCheck = checkHandler(instance);

ff.cloudEvent(FUNCTION_NAME, responsibilityCheck);
ff.cloudEvent('responsibilityCheck', responsibilityCheck);
