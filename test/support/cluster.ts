/**
 * Test support: the embedded API server in-process, with client-node clients for its clusters.
 */
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '@landscape/kube-apiserver';
import { crdFiles } from '../../shared/api/crds.js';

export interface TestServer {
  server: ApiServer;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  custom: k8s.CustomObjectsApi;
  objects: k8s.KubernetesObjectApi;
  /** Raw HTTPS request to the main cluster with its token (for what client-node cannot express). */
  raw(path: string, init?: RawInit): Promise<RawResponse>;
  stop(): Promise<void>;
}

export interface RawInit {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  token?: string | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export function kubeConfigFor(server: ApiServer, cluster = 'main'): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.cluster(cluster).kubeconfigYaml());
  return kc;
}

/** An HTTPS request trusting the cluster's CA. */
export async function rawRequest(
  server: ApiServer,
  cluster: string,
  path: string,
  init: RawInit = {},
): Promise<RawResponse> {
  const { request } = await import('node:https');
  const c = server.cluster(cluster);
  const kc = kubeConfigFor(server, cluster);
  const ca = Buffer.from(kc.getCurrentCluster()!.caData!, 'base64');
  const url = new URL(path, c.url);
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const token = init.token === undefined ? c.token : init.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

export async function startTestServer(opts: ApiServerOptions = {}): Promise<TestServer> {
  const server = await startApiServer({ crdFiles: crdFiles(), ...opts });
  const kc = kubeConfigFor(server);
  return {
    server,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    raw: (path, init) => rawRequest(server, server.clusters()[0].name, path, init),
    stop: () => server.stop(),
  };
}

/** The Status body of a client-node ApiException (or of a raw response). */
export function statusOf(err: unknown): { code: number; reason: string; message: string; details?: any } {
  const e = err as { code?: number; body?: unknown };
  const body =
    typeof e.body === 'string'
      ? (JSON.parse(e.body) as Record<string, unknown>)
      : (e.body as Record<string, unknown>);
  return {
    code: e.code ?? (body?.code as number),
    reason: body?.reason as string,
    message: body?.message as string,
    details: body?.details,
  };
}

/** Runs `fn`, expects it to fail with a Kubernetes Status, and returns that Status. */
export async function expectStatus(fn: () => Promise<unknown>): Promise<ReturnType<typeof statusOf>> {
  try {
    await fn();
  } catch (e) {
    return statusOf(e);
  }
  throw new Error('expected the call to fail with a Status, but it succeeded');
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}
