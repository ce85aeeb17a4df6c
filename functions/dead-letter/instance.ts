/**
 * The per-instance state of the dead-letter sink, built lazily on the first event: the parsed
 * config and the logger. Nothing here runs at import time.
 *
 * A bad or unreadable config file is logged once with every problem. Unlike the other functions,
 * which then acknowledge events and do nothing, the sink goes on logging dead letters with the
 * default config (data never logged): dropping them would lose the only trace of the event.
 */
import { readFile } from 'node:fs/promises';
import type { DestinationStream } from 'pino';
import { createLogger, isLogLevel, type Logger } from '../../shared/log/index.js';
import { defaultConfig, FUNCTION_NAME, loadConfig, type DeadLetterConfig } from './config.js';
import { podName } from '../../shared/function/pod.js';
import { describeDeadLetter, type DeadLetterEvent, type DeadLetterRecord } from './describe.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface DeadLetterInstanceOptions {
  /** The environment, read on the first event (default `process.env`). */
  env?: () => Env;
  readFile?: (path: string) => Promise<string>;
  /** Where the JSON lines go (default stdout). */
  destination?: DestinationStream;
  now?: () => number | Date;
}

export interface DeadLetterInstance {
  /** Logs one dead-lettered event (warn) and returns what was logged. Never rejects. */
  handle(event: unknown): Promise<DeadLetterRecord>;
}

interface Ready {
  config: DeadLetterConfig;
  log: Logger;
}

function asEvent(event: unknown): DeadLetterEvent {
  return typeof event === 'object' && event !== null ? (event as DeadLetterEvent) : {};
}

export function createDeadLetterInstance(opts: DeadLetterInstanceOptions = {}): DeadLetterInstance {
  const getEnv = opts.env ?? ((): Env => process.env);
  const read = opts.readFile ?? ((p: string): Promise<string> => readFile(p, 'utf8'));
  let ready: Promise<Ready> | undefined;

  const logger = (env: Env, level: DeadLetterConfig['logLevel']): Logger =>
    createLogger({
      name: FUNCTION_NAME,
      level,
      fields: { pod: podName(env) },
      ...(opts.destination ? { destination: opts.destination } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    });

  const fallback = (env: Env, msg: string, fields: Record<string, unknown>): Ready => {
    const config = defaultConfig();
    const envLevel = env['LOG_LEVEL'];
    if (isLogLevel(envLevel)) config.logLevel = envLevel;
    const log = logger(env, config.logLevel);
    log.error(msg, fields);
    return { config, log };
  };

  const init = async (): Promise<Ready> => {
    const env = getEnv();
    const path = env['CONFIG_FILE'];
    let text: string | undefined;
    try {
      text = path ? await read(path) : undefined;
    } catch (err) {
      return fallback(env, 'config file unreadable; dead letters are logged with the defaults', {
        file: path,
        error: String(err),
      });
    }
    const result = loadConfig(text, env);
    if (!result.ok)
      return fallback(env, 'invalid config; dead letters are logged with the defaults', {
        file: path,
        problems: result.problems,
      });
    return { config: result.config, log: logger(env, result.config.logLevel) };
  };

  return {
    async handle(event: unknown): Promise<DeadLetterRecord> {
      ready ??= init();
      const { config, log } = await ready;
      const record = describeDeadLetter(asEvent(event), config);
      log.warn(record.msg, record.fields);
      return record;
    },
  };
}
