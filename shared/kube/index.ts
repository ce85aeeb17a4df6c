export { createKubeClient, JSON_PATCH_OPS } from './client.js';
export { DEFAULT_TRANSIENT_RETRY, isConnectionFailure, retryDelay } from './transient.js';
export type { TransientRetry } from './transient.js';
export type {
  DeleteOptions,
  JsonPatchOp,
  JsonPatchOperation,
  KubeClient,
  KubeClientOptions,
  ListOptions,
  ObjectLike,
  ObjectRef,
  PatchOptions,
  ReplaceOptions,
  WriteOptions,
} from './client.js';
export {
  allowPlainHttp,
  isKubeConfigSourceKind,
  KUBECONFIG_SOURCE_KINDS,
  kubeConfigFromEnv,
  kubeConfigFromFile,
  kubeConfigFromYaml,
  kubeConfigInCluster,
  loadKubeConfig,
} from './config.js';
export type { ContextOption, InClusterOptions, KubeConfigSource, KubeConfigSourceKind } from './config.js';
export {
  ConflictRetryExhaustedError,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isRetryableWrite,
  isStatusReason,
  isTargetProblemKind,
  isTooManyRequests,
  isTransientError,
  KubeConfigError,
  KubeError,
  KubeRequestError,
  STATUS_REASONS,
  statusCode,
  statusOf,
  statusReason,
  TARGET_PROBLEMS,
  TargetKubeconfigError,
} from './errors.js';
export type { StatusReason, TargetProblem, TargetProblemKind } from './errors.js';
export {
  ContentTypes,
  DEFAULT_TIMEOUT_MS,
  HTTP_METHODS,
  KubeTimeoutError,
  kubeRequest,
  kubeRequestJson,
} from './http.js';
export type { HttpMethod, KubeHttpRequest, KubeHttpResponse } from './http.js';
export { groupVersionPath, isSubresource, queryString, resourcePath, SUBRESOURCES } from './paths.js';
export type { QueryValue, ResourcePathOptions, Subresource } from './paths.js';
export { DEFAULT_CONFLICT_BACKOFF_MS, DEFAULT_CONFLICT_RETRIES, updateWithConflictRetry } from './retry.js';
export type { ConflictRetryOptions } from './retry.js';
export {
  isTargetSecretMissing,
  kubeConfigForTarget,
  kubeConfigFromTargetKubeconfig,
  targetKubeconfigText,
  validateTargetKubeconfig,
} from './target.js';
export type { ReadSecret, SecretPayload } from './target.js';
