/**
 * One ApiServerSource running, as Knative's adapter (knative/eventing pkg/adapter/apiserver/
 * adapter.go, delegate.go): a Reflector per watched resource, one CloudEvent per watch event
 * delivered to the sink in order (nothing for what a list finds, no resync of its own), and a
 * send that still fails after the adapter's retries logged and dropped (./emit.ts). With a
 * namespaceSelector that has terms, a tracker over Namespaces stands for Knative's controller:
 * when the selection changes, every reflector lists again (the adapter Deployment is rolled), and
 * events of that moment may be lost, as on Knative.
 */
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { isEmptyLabelSelector, labelSelectorString, matchesLabelSelector } from '@landscape/apimachinery';
import { GVK } from '../../shared/api/gvk.js';
import type { Logger } from '../../shared/log/index.js';
import { changeEvent } from './events.js';
import type { EventContext } from './events.js';
import { createEmitter } from './emit.js';
import type { Emit, FetchLike, Sleep } from './emit.js';
import { abortableSleep, Reflector, resolveKind } from '../../shared/kube/reflector/index.js';
import type { Accept, ReflectorOptions } from '../../shared/kube/reflector/index.js';
import type {
  Change,
  OutboundEvent,
  ResolvedKind,
  ResourceSpec,
  SourceSpec,
  WatchedObject,
} from './types.js';

/** Resolves a `spec.sink.ref` (or anything else) to a URL. */
export type SinkResolver = (spec: SourceSpec) => string | Promise<string>;

export interface ApiServerSourceOptions {
  spec: SourceSpec;
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Used when `spec.sink.uri` is not set (or always, when `preferResolver`). */
  resolveSink?: SinkResolver;
  sleep?: Sleep;
  now?: () => Date;
  newId?: () => string;
  /** Delivery; default a binary-mode emitter with Knative's retries. */
  emit?: Emit;
  fetch?: FetchLike;
  reflector?: Pick<ReflectorOptions, 'watchTimeoutSeconds' | 'idleTimeoutMs' | 'backoff'>;
}

export interface RunningSource {
  readonly spec: SourceSpec;
  readonly sink: string;
  /** Resolves once every resource has been listed (and is watched from that resourceVersion). */
  readonly ready: Promise<void>;
  /** Resolves when every queued event has been delivered or dropped. */
  drained(): Promise<void>;
  stop(): Promise<void>;
}

async function sinkFor(o: ApiServerSourceOptions): Promise<string> {
  if (o.spec.sinkUri && /^[a-z][a-z0-9+.-]*:\/\//i.test(o.spec.sinkUri)) return o.spec.sinkUri;
  if (o.resolveSink) return o.resolveSink(o.spec);
  throw new Error(`ApiServerSource ${o.spec.id}: no absolute spec.sink.uri and no sink resolver`);
}

function serverUrl(kc: KubeConfig): string {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  return server;
}

class Source implements RunningSource {
  private queue: Promise<void> = Promise.resolve();
  private readonly reflectors: Reflector[] = [];
  private namespaces: Reflector | undefined;
  private readonly namespaceLabels = new Map<string, Record<string, string>>();
  private readonly stopper = new AbortController();
  private readonly ctx: EventContext;
  private readonly sleep: Sleep;
  private readonly emit: Emit;
  private readonly log: Logger;
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: ApiServerSourceOptions,
    readonly sink: string,
  ) {
    this.sleep = o.sleep ?? abortableSleep;
    this.log = o.logger.child({ source: o.spec.id });
    this.emit = o.emit ?? createEmitter({ logger: this.log, sleep: this.sleep, fetch: o.fetch });
    this.ctx = {
      source: serverUrl(o.kubeConfig),
      mode: o.spec.mode,
      extensions: o.spec.extensions,
      newId: o.newId ?? randomUUID,
      now: o.now ?? (() => new Date()),
    };
  }

  get spec(): SourceSpec {
    return this.o.spec;
  }

  async start(): Promise<void> {
    const sel = this.o.spec.namespaceSelector;
    const filtered = sel !== undefined && !isEmptyLabelSelector(sel);
    if (filtered) await this.startNamespaceTracker();
    const kinds = await Promise.all(
      this.o.spec.resources.map(
        async (r) => [r, await resolveKind(this.o.kubeConfig, r.apiVersion, r.kind)] as const,
      ),
    );
    for (const [resource, kind] of kinds) {
      const namespace = sel === undefined ? this.o.spec.namespace : undefined;
      const reflector = this.reflector(kind, namespace, resource, this.accept(kind, filtered));
      this.reflectors.push(reflector);
    }
    for (const r of this.reflectors) r.start();
    this.ready = Promise.all(this.reflectors.map((r) => r.ready)).then(() => undefined);
  }

  /** The namespace selection (the resource's label selector is the API server's, as on Knative). */
  private accept(kind: ResolvedKind, filtered: boolean): Accept {
    const sel = this.o.spec.namespaceSelector;
    return (object: WatchedObject): boolean => {
      if (!filtered || !kind.namespaced) return true;
      const labels = this.namespaceLabels.get(object.metadata?.namespace ?? '');
      return labels !== undefined && matchesLabelSelector(sel, labels);
    };
  }

  private reflector(
    kind: ResolvedKind,
    namespace: string | undefined,
    resource: ResourceSpec,
    accept: Accept,
  ): Reflector {
    return new Reflector({
      ...this.o.reflector,
      kubeConfig: this.o.kubeConfig,
      kind,
      namespace,
      labelSelector: labelSelectorString(resource.selector),
      accept,
      store: 'adapter',
      onChanges: (changes) => this.changed(kind, changes),
      sleep: this.sleep,
      logger: this.log,
    });
  }

  /** Namespaces and their labels; a change of the selection re-lists every resource (Knative rolls the adapter). */
  private async startNamespaceTracker(): Promise<void> {
    const kind: ResolvedKind = { ...GVK.Namespace };
    this.namespaces = new Reflector({
      ...this.o.reflector,
      kubeConfig: this.o.kubeConfig,
      kind,
      labelSelector: '',
      accept: () => true,
      onChanges: (changes) => this.namespacesChanged(changes),
      sleep: this.sleep,
      logger: this.log.child('namespaces'),
    });
    this.namespaces.start();
    await this.namespaces.ready;
  }

  private namespacesChanged(changes: Change[]): void {
    const selected = (labels: Record<string, string> | undefined): boolean =>
      labels !== undefined && matchesLabelSelector(this.o.spec.namespaceSelector, labels);
    let moved = false;
    for (const c of changes) {
      const name = c.object.metadata?.name ?? '';
      const was = selected(this.namespaceLabels.get(name));
      if (c.action === 'delete') this.namespaceLabels.delete(name);
      else this.namespaceLabels.set(name, c.object.metadata?.labels ?? {});
      moved ||= was !== selected(this.namespaceLabels.get(name));
    }
    if (moved) for (const r of this.reflectors) r.relist();
  }

  private changed(kind: ResolvedKind, changes: Change[]): void {
    for (const c of changes) {
      this.enqueue(changeEvent(this.ctx, { action: c.action, object: c.object, resource: kind }));
    }
  }

  private enqueue(event: OutboundEvent): void {
    this.queue = this.queue.then(async () => {
      try {
        await this.emit(this.sink, event);
      } catch (err) {
        this.log.error('event dropped: emitter failed', {
          id: event.attributes.id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    });
  }

  drained(): Promise<void> {
    return this.queue;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await Promise.all([...this.reflectors.map((r) => r.stop()), this.namespaces?.stop()]);
    await this.queue;
  }
}

/**
 * Starts one ApiServerSource. Resolves once the sink is known and every kind resolved; the
 * returned `ready` resolves after the initial lists (which the source keeps retrying while the
 * API server is away). Nothing is sent for what those lists find.
 */
export async function startApiServerSource(options: ApiServerSourceOptions): Promise<RunningSource> {
  const source = new Source(options, await sinkFor(options));
  try {
    await source.start();
  } catch (err) {
    await source.stop();
    throw err;
  }
  return source;
}
