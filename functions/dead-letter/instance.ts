/**
 * The per-instance state of the dead-letter sink, built lazily on the first event: the parsed
 * config and the logger. Nothing here runs at import time.
 *
 * A bad or unreadable config file is logged once with every problem (again only when the problems
 * change). Unlike the other functions, which then answer 500 until the file is fixed (shared/function
 * createInstance), the sink goes on logging dead letters with the default config (data never
 * logged) and answers 2xx: it is the end of the line. Knative has no dead letter for the dead-letter
 * sink (knative/eventing pkg/kncloudevents: a delivery to the deadLetterSink that fails is only
 * logged), so a sink that failed while its config is bad would drop the only trace of every event.
 * Like the other functions it reads a bad file again at most every `retryConfigMs` (5 s), so a
 * ConfigMap fixed in place (the kubelet updates the mounted file) takes effect without a restart.
 */
import { readFile } from 'node:fs/promises';
import type { DestinationStream } from 'pino';
import { createLogger, isLogLevel, type Logger } from '../../shared/log/index.js';
import { defaultConfig, FUNCTION_NAME, loadConfig, type DeadLetterConfig } from './config.js';
import { podName } from '../../shared/function/pod.js';
import { DEFAULT_RETRY_CONFIG_MS } from '../../shared/function/index.js';
import { describeDeadLetter, type DeadLetterEvent, type DeadLetterRecord } from './describe.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface DeadLetterInstanceOptions {
  /** The environment, read on the first event (default `process.env`). */
  env?: () => Env;
  readFile?: (path: string) => Promise<string>;
  /** Where the JSON lines go (default stdout). */
  destination?: DestinationStream;
  now?: () => number | Date;
  /** The time in milliseconds for the re-read of a bad config (default Date.now). */
  nowMs?: () => number;
  /** While the config is bad, it is read again on a dead letter at most this often. */
  retryConfigMs?: number;
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
  const nowMs = opts.nowMs ?? Date.now;
  const retryMs = opts.retryConfigMs ?? DEFAULT_RETRY_CONFIG_MS;
  let ready: Promise<Ready> | undefined;
  let readAt = 0;
  let logged: string | undefined;

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
    const bad = JSON.stringify([msg, fields]);
    if (bad !== logged) log.error(msg, fields);
    logged = bad;
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
    const log = logger(env, result.config.logLevel);
    if (logged) log.info('config fixed; dead letters are logged with it', { file: path });
    logged = undefined;
    return { config: result.config, log };
  };

  const current = (): Promise<Ready> => {
    // `logged` is set while the config read last was bad
    if (ready && logged !== undefined && nowMs() - readAt >= retryMs) ready = undefined;
    if (!ready) {
      readAt = nowMs();
      ready = init();
    }
    return ready;
  };

  return {
    async handle(event: unknown): Promise<DeadLetterRecord> {
      const { config, log } = await current();
      const record = describeDeadLetter(asEvent(event), config);
      log.warn(record.msg, record.fields);
      return record;
    },
  };
}
