/**
 * Helpers shared by the API-server conformance suite: polling with a short deadline, watch
 * recording through client-node's Watch, request-body rewriting (for bodies client-node's
 * typed serializer would never send), and the full Status body of a failed call.
 */
import * as k8s from '@kubernetes/client-node';
import type { TestServer } from './support/cluster.js';
import { uniqueName } from './support/cluster.js';

/** Retries `fn` until it stops throwing, or rethrows its last error after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 3000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

/** The whole Status body a failed client-node call carried (metadata, details, ...). */
export async function failureBody(fn: () => Promise<unknown>): Promise<Record<string, any>> {
  try {
    await fn();
  } catch (e) {
    const body = (e as { body?: unknown }).body;
    return (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, any>;
  }
  throw new Error('expected the call to fail with a Status, but it succeeded');
}

/** Request options whose middleware replaces the serialized body (e.g. to send malformed JSON). */
export function rewriteBody(rewrite: (body: string) => string): k8s.ConfigurationOptions {
  // The object-parameter API takes Observable middleware (client-node's own rxjs stub).
  const middleware: k8s.ObservableMiddleware = {
    pre: (ctx) => {
      const body = ctx.getBody();
      ctx.setBody(rewrite(typeof body === 'string' ? body : ''));
      return new k8s.Observable(Promise.resolve(ctx));
    },
    post: (res) => new k8s.Observable(Promise.resolve(res)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

/** Request options that add top-level fields to the JSON body client-node serialized. */
export function addToBody(extra: Record<string, unknown>): k8s.ConfigurationOptions {
  return rewriteBody((body) => JSON.stringify({ ...(JSON.parse(body) as object), ...extra }));
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** A watch through client-node's Watch that records every event it gets. */
export class WatchRecorder {
  readonly events: WatchEvent[] = [];
  ended = false;
  private controller?: AbortController;

  static async start(
    kc: k8s.KubeConfig,
    path: string,
    query: Record<string, string | number | boolean | undefined> = {},
  ): Promise<WatchRecorder> {
    const rec = new WatchRecorder();
    rec.controller = await new k8s.Watch(kc).watch(
      path,
      query,
      (type, object) => rec.events.push({ type, object }),
      () => {
        rec.ended = true;
      },
    );
    return rec;
  }

  /** Waits until at least `count` events arrived; returns them all. */
  async waitForCount(count: number, timeoutMs = 3000): Promise<WatchEvent[]> {
    return eventually(() => {
      if (this.events.length < count)
        throw new Error(
          `got ${this.events.length} watch events, want ${count}: ${this.summary().join(', ')}`,
        );
      return this.events;
    }, timeoutMs);
  }

  /** `TYPE name` of every event so far, for compact assertions. */
  summary(): string[] {
    return this.events.map((e) => `${e.type} ${e.object?.metadata?.name ?? ''}`.trim());
  }

  stop(): void {
    this.controller?.abort();
  }
}

/** A KubeConfig for the same cluster whose requests (watches included) carry extra headers. */
export function kubeConfigWithHeaders(kc: k8s.KubeConfig, headers: Record<string, string>): k8s.KubeConfig {
  const copy = new k8s.KubeConfig();
  copy.loadFromString(kc.exportConfig());
  const original = copy.applyToFetchOptions.bind(copy);
  copy.applyToFetchOptions = async (opts) => {
    const init = await original(opts);
    const h = init.headers as unknown as Headers;
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    return init;
  };
  return copy;
}

/**
 * Creates a namespace with a unique name and returns it once its controllers have put its
 * `default` ServiceAccount and `kube-root-ca.crt` ConfigMap into it (Kubernetes' e2e framework
 * waits for the default ServiceAccount of a new namespace the same way).
 */
export async function freshNamespace(t: TestServer, prefix = 'ns'): Promise<string> {
  const name = uniqueName(prefix);
  await t.core.createNamespace({ body: { metadata: { name } } });
  await eventually(() => t.core.readNamespacedServiceAccount({ name: 'default', namespace: name }));
  await eventually(() => t.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: name }));
  return name;
}

export const DEPLOYITEMS = {
  group: 'landscaper.gardener.cloud',
  version: 'v1alpha1',
  plural: 'deployitems',
} as const;

export function deployItem(
  name: string,
  spec: Record<string, unknown> = { type: 'landscaper.gardener.cloud/mock' },
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, ...metadata },
    spec,
  };
}

export function deployment(
  name: string,
  opts: { replicas?: number; labels?: Record<string, string>; containers?: k8s.V1Container[] } = {},
): k8s.V1Deployment {
  const labels = opts.labels ?? { app: name };
  const spec: k8s.V1DeploymentSpec = {
    selector: { matchLabels: labels },
    template: {
      metadata: { labels },
      spec: { containers: opts.containers ?? [{ name: 'main', image: 'nginx:1.27' }] },
    },
  };
  if (opts.replicas !== undefined) spec.replicas = opts.replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec };
}

export const MERGE_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const JSON_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
export const STRATEGIC_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

export const AS_PARTIAL = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const AS_PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** `configmaps "x"`-style conflict message of a real API server. */
export function conflictMessage(resource: string, name: string): string {
  return `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`;
}
