/**
 * The per-instance state of the ticker, built lazily on the first event through the shared
 * instance (shared/function createInstance): the parsed config, the Redis client and the emitter.
 * A bad file is logged once with every problem and every tick is answered 500 (a
 * FunctionNotReadyError) until the file is fixed, which is read again at most every few seconds:
 * a tick is only a hint, but a ticker that acknowledges ticks while it cannot tick would hide
 * that every requeue is stuck. Nothing here runs at import time.
 */
import { randomUUID } from 'node:crypto';
import { lazyRedis, type RedisHandle } from '../../shared/redis/index.js';
import { emitOrThrow, type Event, type FetchLike } from '../../shared/events/index.js';
import { createInstance, type InstanceOptions } from '../../shared/function/index.js';
import { FUNCTION_NAME, loadConfig, type TickConfig } from './config.js';
import { runTick, type TickSummary } from './tick.js';

export interface TickHandlerOptions extends InstanceOptions {
  /** The time the ticker compares due times with (default `new Date()`). */
  now?: () => Date;
  newId?: () => string;
  fetch?: FetchLike;
}

interface TickDeps {
  redis: RedisHandle;
  send: (e: Event) => Promise<void>;
}

export interface TickInstance {
  /** Handles one trigger event; rejects (500, retried) while the config is bad or Redis is down. */
  handle(): Promise<TickSummary>;
  close(): Promise<void>;
}

function sender(config: TickConfig, fetch: FetchLike | undefined): (e: Event) => Promise<void> {
  return async (event) => {
    await emitOrThrow(event, {
      sink: config.sink,
      timeoutMs: config.emitTimeout,
      ...(config.sinkToken ? { token: config.sinkToken } : {}),
      ...(fetch ? { fetch } : {}),
    });
  };
}

export function createTickInstance(opts: TickHandlerOptions = {}): TickInstance {
  const now = opts.now ?? ((): Date => new Date());
  const newId = opts.newId ?? randomUUID;
  const instance = createInstance<TickConfig, TickDeps>(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config }) => ({
        redis: lazyRedis({ url: config.redisUrl, connectionName: FUNCTION_NAME }),
        send: sender(config, opts.fetch),
      }),
      close: (deps) => deps.redis.close(),
    },
    opts,
  );
  return {
    async handle(): Promise<TickSummary> {
      const r = await instance.ready();
      const redis = await r.deps.redis.get();
      return runTick({ redis, send: r.deps.send, now, newId, log: r.log }, r.config);
    },
    close: () => instance.close(),
  };
}
