/** A Logger that writes nothing (the default when no logger is injected). */
import type { Logger } from '../log/index.js';

export const silentLogger: Logger = {
  name: '',
  level: 'error',
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  isLevelEnabled: () => false,
  child: () => silentLogger,
};
