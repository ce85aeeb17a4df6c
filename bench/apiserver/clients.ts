/**
 * The two ways the benchmark talks to the API server, behind one interface:
 * `@kubernetes/client-node` 1.4 as it is (CoreV1Api and Watch; it opens a new TLS connection
 * for every request), and raw `node:https` requests over one keep-alive Agent.
 */
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';

export interface WatchEvent {
  type: string;
  name: string;
  resourceVersion: string;
}

export interface BenchClient {
  create(name: string, i: number): Promise<string>;
  /** Returns the object's resourceVersion. */
  get(name: string): Promise<string>;
  /** PUT with the given resourceVersion; returns the new one. */
  update(name: string, i: number, resourceVersion: string, round: number): Promise<string>;
  /**
   * Lists the bench's ConfigMaps of the namespace (label app=bench: a cluster also keeps its
   * `kube-root-ca.crt` in every namespace); returns how many came back.
   */
  list(): Promise<number>;
  delete(name: string): Promise<void>;
  /** The resourceVersion a watch starts from to see every later change. */
  currentResourceVersion(): Promise<string>;
  /** Starts a watch; resolves once the stream is open, with the function that stops it. */
  watch(fromRV: string, onEvent: (e: WatchEvent) => void, onError: (e: unknown) => void): Promise<() => void>;
  close(): void;
}

/** The label of every ConfigMap the bench writes, the selector of its lists. */
const BENCH_SELECTOR = 'app=bench';

/** The ConfigMap every operation writes: two labels, three data keys (~300 bytes of JSON stored). */
export function configMap(
  namespace: string,
  name: string,
  i: number,
  round: number,
  rv?: string,
): k8s.V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench', shard: String(i % 16) }, resourceVersion: rv },
    data: { index: String(i), round: String(round), payload: 'x'.repeat(64) },
  };
}

function rvOf(o: { metadata?: { resourceVersion?: string } }): string {
  const rv = o.metadata?.resourceVersion;
  if (!rv) throw new Error('response without metadata.resourceVersion');
  return rv;
}

export function loadKubeConfig(kubeconfig: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
}

export function clientNodeClient(kubeconfig: string, namespace: string): BenchClient {
  const kc = loadKubeConfig(kubeconfig);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  return {
    async create(name, i) {
      return rvOf(await api.createNamespacedConfigMap({ namespace, body: configMap(namespace, name, i, 0) }));
    },
    async get(name) {
      return rvOf(await api.readNamespacedConfigMap({ name, namespace }));
    },
    async update(name, i, rv, round) {
      const body = configMap(namespace, name, i, round, rv);
      return rvOf(await api.replaceNamespacedConfigMap({ name, namespace, body }));
    },
    async list() {
      return (await api.listNamespacedConfigMap({ namespace, labelSelector: BENCH_SELECTOR })).items.length;
    },
    async delete(name) {
      await api.deleteNamespacedConfigMap({ name, namespace });
    },
    async currentResourceVersion() {
      return rvOf(await api.listNamespacedConfigMap({ namespace, limit: 1 }));
    },
    async watch(fromRV, onEvent, onError) {
      let stopped = false;
      const controller = await new k8s.Watch(kc).watch(
        path,
        { resourceVersion: fromRV },
        (type: string, obj: k8s.V1ConfigMap) =>
          onEvent({
            type,
            name: obj.metadata?.name ?? '',
            resourceVersion: obj.metadata?.resourceVersion ?? '',
          }),
        (err: unknown) => {
          if (!stopped) onError(err ?? new Error('watch closed by the server'));
        },
      );
      return () => {
        stopped = true;
        controller.abort();
      };
    },
    close() {},
  };
}

interface Target {
  url: URL;
  token: string;
  ca: Buffer;
}

function targetOf(kubeconfig: string): Target {
  const kc = loadKubeConfig(kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  return {
    url: new URL(cluster.server),
    token: kc.getCurrentUser()!.token!,
    ca: Buffer.from(cluster.caData!, 'base64'),
  };
}

function collect(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (d: Buffer) => chunks.push(d));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** One JSON request; throws on a non-2xx answer. */
function send(target: Target, agent: Agent, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${target.token}`,
    Accept: 'application/json',
  };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  const opts: RequestOptions = {
    method,
    headers,
    agent,
    host: target.url.hostname,
    port: target.url.port,
    path,
  };
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      collect(res).then((text) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299)
          reject(new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text));
      }, reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export function rawClient(
  kubeconfig: string,
  namespace: string,
): BenchClient & { createNamespace(): Promise<void> } {
  const target = targetOf(kubeconfig);
  const agent = new Agent({ keepAlive: true, ca: target.ca });
  const watchAgent = new Agent({ keepAlive: false, ca: target.ca });
  const base = `/api/v1/namespaces/${namespace}/configmaps`;
  return {
    async createNamespace() {
      await send(target, agent, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
    },
    async create(name, i) {
      return rvOf(await send(target, agent, 'POST', base, configMap(namespace, name, i, 0)));
    },
    async get(name) {
      return rvOf(await send(target, agent, 'GET', `${base}/${name}`));
    },
    async update(name, i, rv, round) {
      return rvOf(
        await send(target, agent, 'PUT', `${base}/${name}`, configMap(namespace, name, i, round, rv)),
      );
    },
    async list() {
      return (
        (await send(target, agent, 'GET', `${base}?labelSelector=${encodeURIComponent(BENCH_SELECTOR)}`)) as {
          items: unknown[];
        }
      ).items.length;
    },
    async delete(name) {
      await send(target, agent, 'DELETE', `${base}/${name}`);
    },
    async currentResourceVersion() {
      return rvOf(await send(target, agent, 'GET', `${base}?limit=1`));
    },
    watch(fromRV, onEvent, onError) {
      return rawWatch(target, watchAgent, `${base}?watch=true&resourceVersion=${fromRV}`, onEvent, onError);
    },
    close() {
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

function rawWatch(
  target: Target,
  agent: Agent,
  path: string,
  onEvent: (e: WatchEvent) => void,
  onError: (e: unknown) => void,
): Promise<() => void> {
  const headers = { Authorization: `Bearer ${target.token}`, Accept: 'application/json' };
  const opts: RequestOptions = { headers, agent, host: target.url.hostname, port: target.url.port, path };
  let stopped = false;
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch ${path}: ${res.statusCode}`));
        res.resume();
        return;
      }
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      lines.on('line', (line) => {
        const e = JSON.parse(line) as { type: string; object: k8s.V1ConfigMap };
        const meta = e.object.metadata ?? {};
        onEvent({ type: e.type, name: meta.name ?? '', resourceVersion: meta.resourceVersion ?? '' });
      });
      const failed = (err: unknown): void => {
        if (!stopped) onError(err);
      };
      lines.on('error', failed);
      res.on('error', failed);
      res.on('close', () => failed(new Error('watch closed by the server')));
      resolve(() => {
        stopped = true;
        req.destroy();
      });
    });
    req.on('error', (e) => {
      if (!stopped) onError(e);
      reject(e);
    });
    req.end();
  });
}
