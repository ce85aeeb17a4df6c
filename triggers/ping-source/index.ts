export { jitterMs, MAX_JITTER_MS, pingEvent, pingSourceUri, retryDelayMs } from './event.js';
export { startPingSource, startPingSources } from './source.js';
export type { PingSourceDeps, PingSourceOptions, RunningPingSource } from './source.js';
export {
  cronMode,
  parsePingSources,
  PINGSOURCE_API_VERSION,
  PingSourceSchema,
  scheduleProblem,
  toSpec,
} from './spec.js';
export type { ParseOptions, PingSourceManifest, PingSourceSpec, SinkRef } from './spec.js';
