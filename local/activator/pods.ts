/**
 * The Pod objects of the activator's replicas in the main cluster, labelled as Knative labels a
 * revision's pods, created Running when a replica starts and deleted when it stops; and a watch
 * that tells the activator when someone deletes one (`kubectl delete pod`), so it kills that
 * replica as a kubelet would.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { formatTime } from '@landscape/apimachinery';
import { GVK } from '../../shared/api/gvk.js';
import { createKubeClient, isAlreadyExists, isNotFound, type KubeClient } from '../../shared/kube/index.js';
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

/** PodHooks over the API server, plus the watch of deletions. */
export class ApiPods implements PodHooks {
  private readonly client: KubeClient;
  /** Pods this activator deletes itself (no kill on their watch event). */
  private readonly ours = new Set<string>();
  private readonly reflectors: Reflector[] = [];

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

  async created(service: FunctionService, name: string, pid: number | undefined): Promise<void> {
    const pod = replicaPod(service, name, pid);
    const made = await this.client.create(GVK.Pod, pod as never);
    await this.client.replaceStatus(GVK.Pod, {
      ...(made as object),
      status: runningStatus(new Date()),
    } as never);
  }

  async deleted(service: FunctionService, name: string): Promise<void> {
    this.ours.add(`${service.namespace}/${name}`);
    try {
      await this.client.delete(GVK.Pod, { namespace: service.namespace, name }, { gracePeriodSeconds: 0 });
    } catch (err) {
      if (!isNotFound(err)) throw err;
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

  async stop(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.stop()));
  }
}
