export { createLogger, isLogLevel, LOG_LEVELS, RESERVED_KEYS } from './logger.js';
export type { CreateLoggerOptions, LogFields, Logger, LogLevel } from './logger.js';
export { isSecretKey, looksSecret, redactFields, redactValue, REDACTED } from './redact.js';
