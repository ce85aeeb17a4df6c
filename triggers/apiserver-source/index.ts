/** The API-server event source: Knative's ApiServerSource adapter, no stronger (no initial adds, no resync). */
export { startApiServerSource } from './source.js';
export type { ApiServerSourceOptions, RunningSource, SinkResolver } from './source.js';
export { ManifestError, sourceSpecFromManifest, sourceSpecsFromYaml } from './manifest.js';
export { changeEvent, guessPlural, referenceData, subjectFor } from './events.js';
export type { ChangeEventInput, EventContext } from './events.js';
export { backoffDelay, binaryHeaders, createEmitter, isRetryableStatus, RETRYABLE_STATUSES } from './emit.js';
export type { Emit, EmitResult, EmitterOptions, FetchLike, Sleep } from './emit.js';
export { loadSourceSpecs, startService } from './service.js';
export type { Service, ServiceOptions } from './service.js';
export * from './types.js';
