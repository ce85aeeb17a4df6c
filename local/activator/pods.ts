/**
 * The Pod objects of the activator's replicas in the main cluster, labelled as Knative labels a
 * revision's pods, created Running when a replica starts and deleted when it stops; and a watch
 * that tells the activator when someone deletes one (`kubectl delete pod`), so it kills that
 * replica as a kubelet would.
 *
 * The writes are retried until they hold, as the ReplicaSet controller and the kubelet retry
 * theirs (kubernetes pkg/controller/replicaset/replica_set.go requeues a failed manageReplicas with
 * its rate limiter; pkg/kubelet/status/status_manager.go syncs a Pod's status again until it is
 * written; a Pod exists before the kubelet starts its containers): a Pod is what other replicas read to tell whether a lock
 * owner is alive (shared/lock/liveness.ts), so a delete lost to a dropped connection would leave
 * a dead replica's locks held for ever, and a lost create would let its locks be taken while it
 * runs. Only an answer no retry changes (e.g. 422) ends the retries, with a warning.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { formatTime } from '@landscape/apimachinery';
import { GVK } from '../../shared/api/gvk.js';
import {
  createKubeClient,
  isAlreadyExists,
  isNotFound,
  isRetryableWrite,
  statusCode,
  statusOf,
  type KubeClient,
  type ObjectLike,
} from '../../shared/kube/index.js';
import type { Logger } from '../../shared/log/index.js';
import { abortableSleep, Reflector } from '../../shared/kube/reflector/index.js';
import type { PodHooks } from './pool.js';
import type { FunctionService } from './services.js';

export const SERVICE_LABEL = 'serving.knative.dev/service';
export const REVISION_LABEL = 'serving.knative.dev/revision';
export const CONFIGURATION_LABEL = 'serving.knative.dev/configuration';

/** The Pod of a replica (pure). */
export function replicaPod(
  service: FunctionService,
  name: string,
  pid: number | undefined,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: service.namespace,
      labels: {
        [SERVICE_LABEL]: service.name,
        [REVISION_LABEL]: service.revision,
        [CONFIGURATION_LABEL]: service.name,
        'serving.knative.dev/configurationGeneration': '1',
        app: service.revision,
      },
      annotations: { 'landscape.dev/activator-pid': String(pid ?? '') },
    },
    spec: {
      ...(service.serviceAccountName ? { serviceAccountName: service.serviceAccountName } : {}),
      nodeName: 'landscape-activator',
      containers: [{ name: 'user-container', image: service.image ?? 'landscape-functions' }],
    },
  };
}

function runningStatus(now: Date): Record<string, unknown> {
  const t = formatTime(now);
  return {
    phase: 'Running',
    podIP: '127.0.0.1',
    hostIP: '127.0.0.1',
    startTime: t,
    conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
      type,
      status: 'True',
      lastTransitionTime: t,
    })),
    containerStatuses: [
      {
        name: 'user-container',
        ready: true,
        started: true,
        restartCount: 0,
        image: 'landscape-functions',
        imageID: '',
        state: { running: { startedAt: t } },
      },
    ],
  };
}

export interface ApiPodsOptions {
  kubeConfig: KubeConfig;
  log: Logger;
  /** Called when a replica's Pod is deleted by someone else. */
  onDeleted(namespace: string, name: string): void;
}

/** First pause after a failed Pod write; doubled per failure up to RETRY_MAX_MS. */
export const RETRY_BASE_MS = 100;
export const RETRY_MAX_MS = 5_000;

/** Worth another try: no answer (a dropped connection, a timeout), 409 Conflict, 429, 5xx. */
export const isRetryable = isRetryableWrite;

/** A failed write in one short phrase: `409 Conflict: <the Status message>`, or the error's message. */
export function describeFailure(err: unknown): string {
  const code = statusCode(err);
  const status = statusOf(err);
  if (code === undefined || !status) return err instanceof Error ? err.message : String(err);
  return `${code} ${status.reason ?? ''}: ${status.message ?? ''}`;
}

/** The pause before retry `k` (0-based). */
export function retryPause(k: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** k);
}

/** PodHooks over the API server, plus the watch of deletions. */
export class ApiPods implements PodHooks {
  private readonly client: KubeClient;
  /** Pods this activator deletes itself (no kill on their watch event). */
  private readonly ours = new Set<string>();
  private readonly reflectors: Reflector[] = [];
  /** Per Pod: its create (with status) while it runs, so that a delete comes after it. */
  private readonly creating = new Map<string, Promise<void>>();
  /** Pods whose replica is gone: a create still retrying gives up. */
  private readonly gone = new Set<string>();
  private readonly stopping = new AbortController();

  constructor(private readonly o: ApiPodsOptions) {
    // kept-alive connections: each replica's Pod is three requests (create, status, delete), and an
    // idle landscape starts a tick's replica every minute; a TLS handshake per request was a
    // sixth of its own CPU
    this.client = createKubeClient(o.kubeConfig, { fieldManager: 'landscape-activator', keepAlive: true });
  }

  async ensureNamespace(namespace: string): Promise<void> {
    try {
      await this.client.create(GVK.Namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /**
   * Creates the replica's Pod and sets it Running; resolves once both hold (retried), or when
   * the replica is gone or the activator stopped first. Rejects only on an answer no retry
   * changes.
   */
  created(service: FunctionService, name: string, pid: number | undefined): Promise<void> {
    const key = `${service.namespace}/${name}`;
    const work = this.create(service, name, pid, key).finally(() => this.creating.delete(key));
    this.creating.set(key, work);
    return work;
  }

  private async create(
    service: FunctionService,
    name: string,
    pid: number | undefined,
    key: string,
  ): Promise<void> {
    const pod = replicaPod(service, name, pid);
    const wanted = (): boolean => !this.gone.has(key);
    const made = await this.retrying(`create Pod ${key}`, wanted, async () => {
      try {
        return await this.client.create<ObjectLike>(GVK.Pod, pod);
      } catch (err) {
        // a create applied before its answer was lost: the Pod is there, ours by its unique name
        if (!isAlreadyExists(err)) throw err;
        return await this.client.get<ObjectLike>(GVK.Pod, service.namespace, name);
      }
    });
    if (made === undefined) return;
    let current = made;
    await this.retrying(`set Pod ${key} Running`, wanted, async (k) => {
      try {
        if (k > 0) current = await this.client.get<ObjectLike>(GVK.Pod, service.namespace, name);
        const running: ObjectLike & { status: unknown } = { ...current, status: runningStatus(new Date()) };
        await this.client.replaceStatus(GVK.Pod, running);
      } catch (err) {
        // deleted meanwhile (kubectl delete pod): the watch kills the replica
        if (!isNotFound(err)) throw err;
      }
    });
  }

  /** Deletes the replica's Pod (after its create, if that still runs); retried until it is gone. */
  async deleted(service: FunctionService, name: string): Promise<void> {
    const key = `${service.namespace}/${name}`;
    this.ours.add(key);
    this.gone.add(key);
    try {
      await this.creating.get(key)?.catch(() => undefined);
      await this.retrying(
        `delete Pod ${key}`,
        () => true,
        async () => {
          try {
            await this.client.delete(
              GVK.Pod,
              { namespace: service.namespace, name },
              { gracePeriodSeconds: 0 },
            );
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        },
      );
    } finally {
      this.gone.delete(key);
    }
  }

  /**
   * Runs `attempt` until it succeeds (its value), `wanted()` turns false or the activator stops
   * (undefined), or it fails with an error no retry changes (thrown).
   */
  private async retrying<T>(
    what: string,
    wanted: () => boolean,
    attempt: (k: number) => Promise<T>,
  ): Promise<T | undefined> {
    for (let k = 0; ; k++) {
      if (!wanted()) return undefined;
      try {
        const value = await attempt(k);
        if (k > 0) this.o.log.info(`${what}: done after ${k + 1} tries`);
        return value;
      } catch (err) {
        if (!isRetryable(err)) {
          this.o.log.warn(`${what}: failed`, { error: describeFailure(err) });
          throw err;
        }
        if (this.stopping.signal.aborted) return undefined;
        if (k === 0) this.o.log.warn(`${what}: retrying`, { error: describeFailure(err) });
        await abortableSleep(retryPause(k), this.stopping.signal);
        if (this.stopping.signal.aborted) return undefined;
      }
    }
  }

  /** Watches the replicas' Pods in these namespaces; resolves once the first lists are in. */
  async watch(namespaces: readonly string[]): Promise<void> {
    for (const namespace of namespaces) {
      const r = new Reflector({
        kubeConfig: this.o.kubeConfig,
        kind: { ...GVK.Pod },
        namespace,
        labelSelector: SERVICE_LABEL,
        accept: () => true,
        onChanges: (changes) => {
          for (const c of changes) {
            const name = c.object.metadata?.name ?? '';
            const key = `${namespace}/${name}`;
            const gone = c.action === 'delete' || c.object.metadata?.deletionTimestamp !== undefined;
            if (!gone) continue;
            if (this.ours.delete(key)) continue;
            this.o.onDeleted(namespace, name);
          }
        },
        sleep: abortableSleep,
        logger: this.o.log.child('pods'),
      });
      this.reflectors.push(r);
      r.start();
    }
    await Promise.all(this.reflectors.map((r) => r.ready));
  }

  /** Stops the watches; Pod writes still retrying give up (a stopping landscape loses its Pods anyway). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.reflectors.map((r) => r.stop()));
  }
}
