/**
 * Around a function that keeps state in Redis (`config.redisUrl`): an instance whose dependencies
 * hold one lazy connection, named after the function and closed with the instance; and the
 * requeue of an object for the function itself (shared/requeue: a `dev.landscape.requeue` event
 * after a delay).
 */
import { lazyRedis, type RedisHandle } from '../redis/index.js';
import type { Logger } from '../log/index.js';
import { after, requeue, type ObjectRef } from '../requeue/index.js';
import {
  createInstance,
  type Env,
  type FunctionDefinition,
  type FunctionInstance,
  type InstanceOptions,
} from './index.js';

export interface RedisFunctionDefinition<C extends { redisUrl: string }, D> extends Pick<
  FunctionDefinition<C, D>,
  'name' | 'loadConfig'
> {
  /** As FunctionDefinition's, with the function's Redis connection (not yet connected). */
  setup(args: { config: C; env: Env; log: Logger; handle: RedisHandle }): D;
}

/** createInstance with `handle` (the Redis connection) added to the dependencies. */
export function createRedisInstance<C extends { redisUrl: string }, D>(
  def: RedisFunctionDefinition<C, D>,
  opts: InstanceOptions = {},
): FunctionInstance<C, D & { handle: RedisHandle }> {
  return createInstance<C, D & { handle: RedisHandle }>(
    {
      name: def.name,
      loadConfig: def.loadConfig,
      setup: (args) => {
        const handle = lazyRedis({ url: args.config.redisUrl, connectionName: def.name });
        return { ...def.setup({ ...args, handle }), handle };
      },
      close: (deps) => deps.handle.close(),
    },
    opts,
  );
}

/** Looks at an object again `afterMs` after `now()`: a requeue of it for `target`. */
export function requeueFor(
  handle: RedisHandle,
  target: string,
  now: () => Date,
): (ref: ObjectRef, afterMs: number) => Promise<void> {
  return async (ref, afterMs) => {
    await requeue(await handle.get(), { target, ...ref, at: after(now(), afterMs) });
  };
}

/**
 * A function's own next pass, queued for `target` at a given time (keeping an earlier entry): one
 * entry per function (`ref` names no object), handed over by requeue-tick as a
 * `dev.landscape.requeue` event when due. What a function uses instead of a PingSource when it has
 * nothing to do between passes most of the time (issue 16: no replica starts for nothing).
 */
export function passScheduler(
  handle: RedisHandle,
  target: string,
  ref: ObjectRef,
): (at: Date) => Promise<void> {
  return async (at) => {
    await requeue(await handle.get(), { target, ...ref, at }, { mode: 'earliest' });
  };
}

/** What a function that queues its own passes holds: its Redis connection and the queue call. */
export interface PassQueue {
  handle?: RedisHandle;
  /** Queues the next pass at a time (keeping an earlier entry); absent without Redis. */
  schedule?: (at: Date) => Promise<void>;
}

/**
 * The pass queue of function `name` when `url` is set (a lazy connection: no I/O until used); without
 * one a warning says that passes then run on events only (the family's resync).
 */
export function passQueue(url: string | undefined, name: string, ref: ObjectRef, log: Logger): PassQueue {
  if (url === undefined) {
    log.warn('no redisUrl: no pass is queued; passes run on events (the resync) only');
    return {};
  }
  const handle = lazyRedis({ url, connectionName: name });
  return { handle, schedule: passScheduler(handle, name, ref) };
}
