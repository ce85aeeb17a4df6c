/**
 * Test support for the manifest deployer against the embedded API server: a `target` cluster
 * (the Target's), StepContexts the way the runtime builds them, and a driver that feeds each
 * step's providerStatus into the next one as the runtime does after a `wait`.
 */
import { startApiServer, type ApiServer, type WorkloadSimulation } from '@landscape/kube-apiserver';
import type { GroupVersionKind } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import {
  ProgressingTimeoutError,
  type DeployerPlugin,
  type StepContext,
  type StepResult,
} from '../../../shared/deployer/types.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../../shared/kube/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { crdFiles } from '../../../shared/api/crds.js';

export const NS = 'default';
export const CONFIG_V2 = 'manifest.deployer.landscaper.gardener.cloud/v1alpha2';
export const CONFIG_V1 = 'manifest.deployer.landscaper.gardener.cloud/v1alpha1';

export interface Harness {
  srv: ApiServer;
  /** The Target's cluster. */
  target: KubeClient;
  /** The Landscaper host cluster. */
  host: KubeClient;
  stop(): Promise<void>;
}

export async function startHarness(workloads?: WorkloadSimulation, audit = false): Promise<Harness> {
  const srv = await startApiServer({
    crdFiles: crdFiles(),
    clusters: ['main', { name: 'target', ...(workloads ? { workloads } : {}) }],
    ...(audit ? { audit: true } : {}),
  });
  const client = (name: string): KubeClient =>
    createKubeClient(kubeConfigFromYaml(srv.cluster(name).kubeconfigYaml()), {
      fieldManager: 'manifest-test',
    });
  return { srv, target: client('target'), host: client('main'), stop: () => srv.stop() };
}

/** A namespaced CRD `<plural>.example.com` that keeps any field. */
export function exampleCrd(kind: string, plural: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

export function deployItem(name: string, config: unknown, jobID = 'job-1', generation = 1): DeployItem {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-manifest',
      target: { name: 'tgt' },
      config: config as never,
    },
    status: { observedGeneration: 0, jobID },
  };
}

/** The same item in a new job (and generation) with another config; providerStatus kept. */
export function nextJob(item: DeployItem, config: unknown): DeployItem {
  const generation = (item.metadata?.generation ?? 1) + 1;
  return {
    ...item,
    metadata: { ...item.metadata, generation },
    spec: { ...item.spec, config: config as never },
    status: { ...item.status!, jobID: `job-${generation}` },
  };
}

export interface TestContext extends StepContext {
  readonly checkpoints: string[];
}

export interface ContextOptions {
  /** Checkpoints (by name) that throw the progressing timeout. */
  expired?: readonly string[];
  /** No Target client (the item names no usable Target). */
  noTarget?: boolean;
}

export function stepContext(h: Harness, item: DeployItem, opts: ContextOptions = {}): TestContext {
  const checkpoints: string[] = [];
  return {
    item,
    ...(opts.noTarget ? {} : { targetClient: h.target }),
    hostClient: h.host,
    now: () => new Date(),
    log: createLogger({ name: 'test', level: 'error' }),
    checkpoints,
    checkpoint(name: string): void {
      checkpoints.push(name);
      if (opts.expired?.includes(name)) throw new ProgressingTimeoutError(name);
    },
  };
}

export function withProviderStatus(
  item: DeployItem,
  providerStatus: Record<string, unknown> | undefined,
): DeployItem {
  return { ...item, status: { ...item.status!, ...(providerStatus ? { providerStatus } : {}) } };
}

export interface Run {
  results: StepResult[];
  /** The item as the runtime would hold it after the last step. */
  item: DeployItem;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Calls the step until it is done (or `maxSteps`), carrying providerStatus, sleeping afterMs. */
export async function drive(
  h: Harness,
  plugin: DeployerPlugin,
  op: 'reconcile' | 'delete',
  start: DeployItem,
  maxSteps = 50,
): Promise<Run> {
  let item = start;
  const results: StepResult[] = [];
  for (let i = 0; i < maxSteps; i++) {
    const r = await plugin[op](stepContext(h, item));
    results.push(r);
    item = withProviderStatus(item, r.providerStatus);
    if (r.kind === 'done') return { results, item };
    await sleep(r.afterMs);
  }
  return { results, item };
}

/** The object, or undefined when it does not exist. */
export async function read<T = any>(
  client: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<any>(gvk, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function configMap(
  name: string,
  data: Record<string, string>,
  namespace = NS,
): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

export function v2(manifests: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: CONFIG_V2, kind: 'ProviderConfiguration', manifests, ...extra };
}

export function entry(manifest: unknown, policy?: string): Record<string, unknown> {
  return policy ? { policy, manifest } : { manifest };
}
