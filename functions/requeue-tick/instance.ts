/**
 * The per-instance state of the ticker, built lazily on the first event: the parsed config (a
 * bad file is logged once with every problem, and every event is then acknowledged without doing
 * anything), the Redis client, and the emitter. Nothing here runs at import time.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { lazyRedis, type RedisHandle } from '../../shared/cache/index.js';
import { emitOrThrow, type Event, type FetchLike } from '../../shared/events/index.js';
import { createLogger, isLogLevel, type Logger } from '../../shared/log/index.js';
import { FUNCTION_NAME, loadConfig, type TickConfig } from './config.js';
import { podName } from '../../shared/function/pod.js';
import { runTick, type TickSummary } from './tick.js';

export interface TickHandlerOptions {
  /** The environment, read on the first event (default `process.env`). */
  env?: () => Readonly<Record<string, string | undefined>>;
  readFile?: (path: string) => Promise<string>;
  now?: () => Date;
  newId?: () => string;
  fetch?: FetchLike;
  log?: Logger;
}

type Ready =
  { ok: true; config: TickConfig; redis: RedisHandle; send: (e: Event) => Promise<void> } | { ok: false };

export interface TickInstance {
  /** Handles one trigger event; resolves undefined when the config is bad (acknowledged). */
  handle(): Promise<TickSummary | undefined>;
  close(): Promise<void>;
}

async function readConfigText(
  env: Readonly<Record<string, string | undefined>>,
  read: (p: string) => Promise<string>,
): Promise<string | undefined> {
  const path = env['CONFIG_FILE'];
  if (!path) return undefined;
  return read(path);
}

export function createTickInstance(opts: TickHandlerOptions = {}): TickInstance {
  const getEnv = opts.env ?? ((): NodeJS.ProcessEnv => process.env);
  const now = opts.now ?? ((): Date => new Date());
  const newId = opts.newId ?? randomUUID;
  let log = opts.log;
  let ready: Promise<Ready> | undefined;

  const init = async (): Promise<Ready> => {
    const env = getEnv();
    const level = env['LOG_LEVEL'];
    log ??= createLogger({
      name: FUNCTION_NAME,
      level: isLogLevel(level) ? level : 'info',
      fields: { pod: podName(env) },
    });
    let text: string | undefined;
    try {
      text = await readConfigText(env, opts.readFile ?? ((p) => readFile(p, 'utf8')));
    } catch (err) {
      log.error('config file unreadable; events are acknowledged and nothing is done', {
        error: String(err),
      });
      return { ok: false };
    }
    const result = loadConfig(text, env);
    if (!result.ok) {
      log.error('invalid config; events are acknowledged and nothing is done', { problems: result.problems });
      return { ok: false };
    }
    const { config } = result;
    const redis = lazyRedis({ url: config.redisUrl, connectionName: FUNCTION_NAME });
    const send = async (event: Event): Promise<void> => {
      await emitOrThrow(event, {
        sink: config.sink,
        timeoutMs: config.emitTimeout,
        ...(config.sinkToken ? { token: config.sinkToken } : {}),
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
      });
    };
    return { ok: true, config, redis, send };
  };

  return {
    async handle(): Promise<TickSummary | undefined> {
      ready ??= init();
      const r = await ready;
      if (!r.ok) return undefined;
      const redis = await r.redis.get();
      return runTick({ redis, send: r.send, now, newId, log: log! }, r.config);
    },
    async close(): Promise<void> {
      const r = await ready;
      if (r?.ok) await r.redis.close();
    },
  };
}
