/**
 * The objects kube-controller-manager puts into every namespace: the `default` ServiceAccount
 * (serviceaccounts-controller: k8s.io/kubernetes pkg/controller/serviceaccount/
 * serviceaccounts_controller.go) and the `kube-root-ca.crt` ConfigMap with the cluster's CA
 * (root-ca-cert-publisher: pkg/controller/certificates/rootcacertpublisher/publisher.go).
 *
 * A namespace restored without its `kubernetes.io/metadata.name` label gets it (the namespace
 * strategy sets it on every write; kube-apiserver's defaulting adds it on read).
 *
 * Both act on a namespace when it is added or changes and when their object in it is deleted
 * (the ConfigMap also when it is changed: its data and description are put back). A namespace
 * that is not Active (Terminating) is skipped. Nothing is written when the object is as it
 * should be, so an idle cluster stays idle.
 */
import type { Operations } from '../registry/operations.js';
import { subscribeResources, type Store, type StoreEvent } from '../storage/store.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { deepEqual } from '../api/objects.js';
import { NAMESPACE_NAME_LABEL } from '../registry/core-strategy.js';

const NS_RESOURCE = '/namespaces';
const SA_RESOURCE = '/serviceaccounts';
const CM_RESOURCE = '/configmaps';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints ' +
  'such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across ' +
  'distributions of Kubernetes clusters.';
const WRITE = { fieldValidation: 'Ignore' as const, dryRun: false };

interface Deps {
  store: Store;
  ops: Operations;
  defOf: (resource: string) => ResourceDef | undefined;
}

/** The namespace whose objects must be looked at after an event, if any. */
function affected(e: StoreEvent): string | undefined {
  const { name, namespace } = e.object.metadata;
  if (e.resource === NS_RESOURCE) return e.type === 'DELETED' ? undefined : name;
  if (e.resource === SA_RESOURCE && e.type === 'DELETED' && name === DEFAULT_SERVICE_ACCOUNT)
    return namespace;
  if (e.resource === CM_RESOURCE && e.type !== 'ADDED' && name === ROOT_CA_CONFIGMAP) return namespace;
  return undefined;
}

/** Starts both controllers on a cluster's store; `caCert`: the PEM the ConfigMap publishes. Returns the stop. */
export function startNamespaceObjects(deps: Deps, caCert: string): () => void {
  const pending = new Set<string>();
  const flush = (): void => {
    const names = [...pending];
    pending.clear();
    for (const name of names) syncNamespace(deps, caCert, name);
  };
  const later = (name: string): void => {
    if (pending.size === 0) setImmediate(flush);
    pending.add(name);
  };
  const unsubscribe = subscribeResources(deps.store, [NS_RESOURCE, SA_RESOURCE, CM_RESOURCE], (e) => {
    const ns = affected(e);
    if (ns) later(ns);
  });
  // namespaces that exist already (restored from a data directory)
  for (const ns of deps.store.list(NS_RESOURCE)) later(ns.metadata.name!);
  return unsubscribe;
}

function syncNamespace(deps: Deps, caCert: string, name: string): void {
  const ns = deps.store.get(NS_RESOURCE, undefined, name);
  if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string })?.phase !== 'Active') return;
  attempt(() => ensureNameLabel(deps, ns));
  attempt(() => ensureServiceAccount(deps, name));
  attempt(() => ensureRootCa(deps, caCert, name));
}

/** A write that lost to a concurrent one (or to the namespace going away): the next event retries. */
function attempt(write: () => void): void {
  try {
    write();
  } catch {
    // nothing to do: see above
  }
}

/**
 * A namespace stored without its name label (restored from a data directory written before the
 * namespace strategy set it) gets it, as kube-apiserver's defaulting shows it on every read.
 */
function ensureNameLabel(deps: Deps, ns: KubeObject): void {
  if (ns.metadata.labels?.[NAMESPACE_NAME_LABEL] === ns.metadata.name) return;
  deps.ops.update({ def: deps.defOf(NS_RESOURCE)!, name: ns.metadata.name }, ns, WRITE);
}

function ensureServiceAccount(deps: Deps, namespace: string): void {
  if (deps.store.get(SA_RESOURCE, namespace, DEFAULT_SERVICE_ACCOUNT)) return;
  const sa = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace },
  };
  deps.ops.create({ def: deps.defOf(SA_RESOURCE)!, namespace }, sa, WRITE);
}

function ensureRootCa(deps: Deps, caCert: string, namespace: string): void {
  const def = deps.defOf(CM_RESOURCE)!;
  const data = { 'ca.crt': caCert };
  const cm = deps.store.get(CM_RESOURCE, namespace, ROOT_CA_CONFIGMAP);
  if (!cm) {
    const annotations = { [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    const created = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations },
      data,
    };
    deps.ops.create({ def, namespace }, created, WRITE);
    return;
  }
  if (
    deepEqual((cm as KubeObject & { data?: unknown }).data, data) &&
    cm.metadata.annotations?.[DESCRIPTION_ANNOTATION]
  )
    return;
  const annotations = { ...(cm.metadata.annotations ?? {}), [DESCRIPTION_ANNOTATION]: DESCRIPTION };
  deps.ops.update(
    { def, namespace, name: ROOT_CA_CONFIGMAP },
    { ...cm, metadata: { ...cm.metadata, annotations }, data },
    WRITE,
  );
}
