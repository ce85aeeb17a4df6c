/**
 * Manifests the e2e suite applies with kubectl, as YAML text (what a user writes).
 */
import { stringify } from 'yaml';

type Labels = Record<string, string>;

/** YAML 1.1 (what kubectl's sigs.k8s.io/yaml reads), so `y`, `on`, `no` ... are quoted as strings. */
function doc(obj: Record<string, unknown>): string {
  return stringify(obj, { version: '1.1' });
}

function meta(
  name: string,
  extra: { namespace?: string; labels?: Labels; finalizers?: string[]; resourceVersion?: string } = {},
): Record<string, unknown> {
  return {
    name,
    ...(extra.namespace ? { namespace: extra.namespace } : {}),
    ...(extra.labels ? { labels: extra.labels } : {}),
    ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
  };
}

export function namespace(name: string, labels?: Labels): string {
  return doc({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(name, { labels }) });
}

export function configMap(
  name: string,
  data: Record<string, string>,
  opts: { namespace?: string; labels?: Labels; finalizers?: string[] } = {},
): string {
  return doc({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name, opts), data });
}

export interface DeploymentOptions {
  image: string;
  replicas?: number;
  /** More containers besides "web" (name → image). */
  sidecars?: Record<string, string>;
  env?: Record<string, string>;
  /** Annotated `landscape.dev/simulate: "false"`: the workload simulation leaves its status alone. */
  unsimulated?: boolean;
}

export function deployment(name: string, o: DeploymentOptions): string {
  const labels = { app: name };
  const web = {
    name: 'web',
    image: o.image,
    ports: [{ containerPort: 8080, name: 'http' }],
    ...(o.env ? { env: Object.entries(o.env).map(([n, value]) => ({ name: n, value })) } : {}),
  };
  const sidecars = Object.entries(o.sidecars ?? {}).map(([n, image]) => ({ name: n, image }));
  return doc({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      ...meta(name, { labels }),
      ...(o.unsimulated ? { annotations: { 'landscape.dev/simulate': 'false' } } : {}),
    },
    spec: {
      replicas: o.replicas ?? 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [web, ...sidecars] } },
    },
  });
}

/** A DeployItem; `spec` is merged over `{ type: 'landscaper.gardener.cloud/mock' }`. */
export function deployItem(
  name: string,
  spec: Record<string, unknown> = {},
  opts: { labels?: Labels; finalizers?: string[] } = {},
): string {
  return doc({
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: meta(name, opts),
    spec: { type: 'landscaper.gardener.cloud/mock', ...spec },
  });
}

export function shoot(name: string, o: { region: string; purpose?: string; labels?: Labels }): string {
  return doc({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: meta(name, { labels: o.labels }),
    spec: {
      cloudProfileName: 'local',
      region: o.region,
      ...(o.purpose ? { purpose: o.purpose } : {}),
      provider: {
        type: 'local',
        workers: [{ name: 'worker', machine: { type: 'local' }, minimum: 1, maximum: 2 }],
      },
      kubernetes: { version: '1.32.0' },
    },
  });
}

export function seed(name: string, o: { region: string; labels?: Labels }): string {
  return doc({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: meta(name, { labels: o.labels }),
    spec: {
      provider: { type: 'local', region: o.region },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16', nodes: '10.0.0.0/16' },
    },
  });
}

export function managedSeedSet(name: string, o: { replicas: number; region?: string }): string {
  const labels = { 'managed-seed-set': name };
  return doc({
    apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
    kind: 'ManagedSeedSet',
    metadata: meta(name),
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: {} },
      shootTemplate: {
        metadata: { labels },
        spec: { provider: { type: 'local' }, region: o.region ?? 'local' },
      },
    },
  });
}

/** A Ready condition as the DeployItem status schema requires it (all fields set). */
export function readyCondition(status: 'True' | 'False'): Record<string, string> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'Done' : 'Pending',
    message: 'set by the e2e test',
    lastTransitionTime: at,
    lastUpdateTime: at,
  };
}
