/**
 * Structured JSON-lines logger in the shape of the seed's logs (controller-runtime / zap):
 *
 *   {"level":"info","ts":"2023-07-13T11:33:30.205Z","logger":"controllers.landscaper-monitoring","msg":"HPA Statistics","resource":"ls-system/x",...}
 *
 * Built on pino. Keys come in that order: level, ts (ISO 8601, UTC, milliseconds), logger, msg,
 * then the fields. Child loggers join names with '.' (controller-runtime's WithName). Secret
 * fields are redacted (see ./redact.ts). The level is an explicit option: the caller reads the
 * environment, this module does not. Nothing happens at import time.
 */
import { isOneOf } from '@landscape/apimachinery';
import { pino } from 'pino';
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import { redactFields } from './redact.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const isLogLevel: (value: unknown) => value is LogLevel = isOneOf(LOG_LEVELS);

/** Keys the logger writes itself; a field with one of these names is renamed with a trailing '_'. */
export const RESERVED_KEYS = ['level', 'ts', 'logger', 'msg'] as const;

export type LogFields = Record<string, unknown>;

export interface Logger {
  /** The dotted name printed as `logger`. */
  readonly name: string;
  readonly level: LogLevel;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  isLevelEnabled(level: LogLevel): boolean;
  /**
   * A child logger: a string appends a name segment (`landscaper` → `landscaper.deployer`); an
   * object adds fields printed on every line. `child('deployer', { deployItem: 'ns/x' })` does both.
   */
  child(nameOrFields: string | LogFields, fields?: LogFields): Logger;
}

export interface CreateLoggerOptions {
  /** The logger name, e.g. `controllers.landscaper-monitoring`. */
  name: string;
  /** Default `info`. */
  level?: LogLevel;
  /** Where the JSON lines go (anything with `write(line)`); default: stdout, written synchronously. */
  destination?: DestinationStream;
  /** The clock for `ts`; default `Date.now`. */
  now?: () => number | Date;
  /** Fields printed on every line. */
  fields?: LogFields;
}

class JsonLogger implements Logger {
  constructor(
    private readonly root: PinoLogger,
    readonly name: string,
    readonly level: LogLevel,
    private readonly fields: LogFields,
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  isLevelEnabled(level: LogLevel): boolean {
    return this.root.isLevelEnabled(level);
  }

  child(nameOrFields: string | LogFields, fields?: LogFields): Logger {
    const segment = typeof nameOrFields === 'string' ? nameOrFields : undefined;
    const extra = typeof nameOrFields === 'string' ? (fields ?? {}) : { ...nameOrFields, ...fields };
    const name = segment === undefined || segment === '' ? this.name : joinName(this.name, segment);
    return new JsonLogger(this.root, name, this.level, { ...this.fields, ...extra });
  }

  private write(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    if (!this.root.isLevelEnabled(level)) return;
    const line = { logger: this.name, msg, ...renameReserved(redactFields({ ...this.fields, ...fields })) };
    this.root[level](line);
  }
}

function joinName(parent: string, segment: string): string {
  return parent === '' ? segment : `${parent}.${segment}`;
}

function renameReserved(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) {
    out[(RESERVED_KEYS as readonly string[]).includes(k) ? `${k}_` : k] = v;
  }
  return out;
}

function isoTime(now: () => number | Date): () => string {
  return () => `,"ts":"${new Date(now()).toISOString()}"`;
}

/** Creates a logger. Nothing is written until a log method is called. */
export function createLogger(options: CreateLoggerOptions): Logger {
  const level = options.level ?? 'info';
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const root = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: isoTime(options.now ?? Date.now),
      formatters: { level: (label: string) => ({ level: label }) },
    },
    destination,
  );
  return new JsonLogger(root, options.name, level, options.fields ?? {});
}
