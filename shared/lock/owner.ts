/**
 * Who am I, as a lock owner, and how do others tell whether I am alive?
 *
 * Where replicas are Pods the Pod name names the owner; with the Pod's namespace as well,
 * liveness is by Pod. Both come from shared/function/pod.ts (the hostname and the service
 * account's namespace file, POD_NAME / POD_NAMESPACE overriding: no downward API). Elsewhere
 * (Cloud Functions) the owner is a random id per process and liveness is by a heartbeat key in
 * Redis. The caller passes the environment in (and may pass the reads of the Pod's identity).
 */
import { isOneOf } from '@landscape/apimachinery';
import { randomUUID } from 'node:crypto';
import type { RedisHandle } from '../redis/index.js';
import { podIdentity, type PodReads } from '../function/pod.js';
import type { Logger } from '../log/index.js';
import type { HeartbeatOptions, Liveness, PodMetadataReader } from './liveness.js';
import { heartbeatLiveness, podLiveness } from './liveness.js';

export const LIVENESS_KINDS = ['pod', 'heartbeat'] as const;
export type LivenessKind = (typeof LIVENESS_KINDS)[number];
export const isLivenessKind: (value: unknown) => value is LivenessKind = isOneOf(LIVENESS_KINDS);

export type LockOwner =
  { owner: string; liveness: 'pod'; podNamespace: string } | { owner: string; liveness: 'heartbeat' };

export interface LockOwnerEnv {
  POD_NAME?: string;
  POD_NAMESPACE?: string;
  /** Set by the kubelet in every container: the Pod's hostname and namespace file are read. */
  KUBERNETES_SERVICE_HOST?: string;
  /** Knative's and Cloud Run's service name, used in the instance id for readability. */
  K_SERVICE?: string;
  /** The Functions Framework's function name (Cloud Functions). */
  FUNCTION_TARGET?: string;
}

let processInstanceId: string | undefined;

/** A random id, made once per process (lazily: nothing happens at import time). */
export function instanceId(rand: () => string = randomUUID): string {
  processInstanceId ??= rand();
  return processInstanceId;
}

const MAX_OWNER_BASE = 63 - 1 - 36;

/**
 * The lock owner of this process; `rand` replaces the per-process random id and `reads` the
 * reads of the hostname and namespace file (tests).
 */
export function lockOwner(env: LockOwnerEnv, rand?: () => string, reads?: PodReads): LockOwner {
  const { podName, podNamespace } = podIdentity(env, reads);
  if (podName && podNamespace) return { owner: podName, liveness: 'pod', podNamespace };
  if (podName) return { owner: podName, liveness: 'heartbeat' };
  const id = rand ? rand() : instanceId();
  const base = (env.K_SERVICE ?? env.FUNCTION_TARGET ?? 'instance').slice(0, MAX_OWNER_BASE);
  return { owner: `${base}-${id}`, liveness: 'heartbeat' };
}

export interface LivenessDeps {
  /** The client of the cluster the Pods run in (pod liveness). */
  client: PodMetadataReader;
  /** Redis (heartbeat liveness); required when the owner's liveness is `heartbeat`. */
  redis?: RedisHandle;
  heartbeat?: Omit<HeartbeatOptions, 'log'>;
  log?: Logger;
}

/** The Liveness that fits `who`: by Pod in its namespace, or by heartbeat in Redis. */
export function livenessFor(who: LockOwner, deps: LivenessDeps): Liveness {
  if (who.liveness === 'pod') return podLiveness(deps.client, who.podNamespace);
  if (!deps.redis) {
    throw new Error(
      'heartbeat lock liveness needs Redis (REDIS_URL) when the Pod name and namespace are not known',
    );
  }
  return heartbeatLiveness(deps.redis, { ...deps.heartbeat, log: deps.log });
}
