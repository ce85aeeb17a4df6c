/** The API-server event source: Knative's ApiServerSource adapter, no stronger (no initial adds, no resync). */
export { abortableSleep, startApiServerSource } from './source.js';
export type { ApiServerSourceOptions, RunningSource, SinkResolver } from './source.js';
export { ManifestError, sourceSpecFromManifest, sourceSpecsFromYaml } from './manifest.js';
export { changeEvent, guessPlural, referenceData, subjectFor } from './events.js';
export type { ChangeEventInput, EventContext } from './events.js';
export {
  applyChanges,
  changeForWatchEvent,
  changesForRelist,
  changesForWatchEvent,
  isExpiredStatus,
  objectKey,
} from './core.js';
export type { Accept, Known } from './core.js';
export { backoffDelay, binaryHeaders, createEmitter, isRetryableStatus, RETRYABLE_STATUSES } from './emit.js';
export type { Emit, EmitResult, EmitterOptions, FetchLike, Sleep } from './emit.js';
export { Reflector } from './reflector.js';
export type { ReflectorOptions } from './reflector.js';
export { resolveKind, UnknownKindError } from './kube.js';
export { loadSourceSpecs, startService } from './main.js';
export type { Service, ServiceOptions } from './main.js';
export * from './types.js';
export {
  FunctionUrlTemplateError,
  parseFunctionUrlTemplate,
  routedResolver,
  sinkFromRefs,
  startRoutedService,
  withFunctionAuth,
} from './routed.js';
export type { RoutedService, RoutedServiceOptions } from './routed.js';
