/**
 * Who this replica is, without the downward API. A default Knative install refuses
 * `valueFrom.fieldRef` (knative/serving pkg/apis/config/features.go: `kubernetes.podspec-fieldref`
 * is Disabled; pkg/apis/serving/fieldmask.go drops the field), so:
 * - the Pod name is the container's hostname: the kubelet sets it to the Pod name, cut to 63
 *   characters (kubernetes/kubernetes pkg/kubelet/kubelet_pods.go, GeneratePodHostNameAndDomain /
 *   truncatePodHostnameIfNeeded); a hostname of 63 characters may be such a cut name, so it is
 *   not taken for the Pod name (the caller then does without one);
 * - the namespace is the service account's `namespace` file, what client-go's in-cluster config
 *   reads (kubernetes/client-go tools/clientcmd/client_config.go, inClusterClientConfig.Namespace);
 *   it exists only where the ServiceAccount's token is mounted.
 * Both are read only inside a Pod (KUBERNETES_SERVICE_HOST, which the kubelet gives every
 * container): on Cloud Functions a hostname names no Pod. POD_NAME / POD_NAMESPACE in the
 * environment win over both (the embedded activator sets them; a manifest may set POD_NAMESPACE
 * as a plain value where no token is mounted). Pure given the injected reads.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export const NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
/** The kubelet cuts a Pod's hostname to this many characters. */
export const MAX_POD_HOSTNAME = 63;

/** The environment keys read (any environment record fits). */
export interface PodEnv {
  readonly POD_NAME?: string | undefined;
  readonly POD_NAMESPACE?: string | undefined;
  readonly KUBERNETES_SERVICE_HOST?: string | undefined;
}

export interface PodReads {
  hostname(): string;
  /** The namespace file's text; undefined when there is none. */
  readNamespaceFile(): string | undefined;
}

export interface PodIdentity {
  podName?: string;
  podNamespace?: string;
}

function nonBlank(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** The hostname as a Pod name: not when it may have been cut. */
export function podNameOfHostname(name: string): string | undefined {
  const n = nonBlank(name);
  return n !== undefined && n.length < MAX_POD_HOSTNAME ? n : undefined;
}

/** The process's own reads (node:os hostname, the namespace file; none at import time). */
export const nodePodReads: PodReads = {
  hostname: () => hostname(),
  readNamespaceFile: () => {
    try {
      return readFileSync(NAMESPACE_FILE, 'utf8');
    } catch {
      return undefined;
    }
  },
};

/** This replica's Pod name and namespace, each when it can be known. */
export function podIdentity(env: PodEnv, reads: PodReads = nodePodReads): PodIdentity {
  const inPod = nonBlank(env.KUBERNETES_SERVICE_HOST) !== undefined;
  const podName = nonBlank(env.POD_NAME) ?? (inPod ? podNameOfHostname(reads.hostname()) : undefined);
  const podNamespace =
    nonBlank(env.POD_NAMESPACE) ?? (inPod ? nonBlank(reads.readNamespaceFile()) : undefined);
  return {
    ...(podName !== undefined ? { podName } : {}),
    ...(podNamespace !== undefined ? { podNamespace } : {}),
  };
}

/** The Pod name alone (log fields, lock owner names). */
export function podName(env: PodEnv, reads: PodReads = nodePodReads): string | undefined {
  return podIdentity(env, reads).podName;
}
