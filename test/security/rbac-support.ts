/**
 * Support of the RBAC security tests (test/security/rbac*.test.ts): the embedded API server with
 * RBAC enforced, the RBAC objects (ServiceAccounts, Roles, ClusterRoles, bindings, Namespaces) of
 * every manifest under knative/ applied by the admin, a private redis-server, and the helpers that
 * act as one function's ServiceAccount: a kubeconfig holding only its token (TokenRequest), a
 * SelfSubjectAccessReview, a direct request, and a logger whose lines are checked for 403s.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { startApiServer, type ApiServer, type ClusterSpec } from '@landscape/kube-apiserver';
import { GVK } from '../../shared/api/gvk.js';
import { createLogger } from '../../shared/log/index.js';
import { lazyRedis } from '../../shared/redis/index.js';
import {
  createKubeClient,
  isNotFound,
  kubeConfigFromYaml,
  type KubeClient,
} from '../../shared/kube/index.js';
import { pending, type RequeueItem } from '../../shared/requeue/index.js';
import { rawRequest } from '../support/cluster.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { crdFiles } from '../../shared/api/crds.js';

export const SYSTEM = 'landscape-system';
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** Every RBAC object (and Namespace) of the manifests under knative/. */
export async function rbacObjects(): Promise<k8s.KubernetesObject[]> {
  const root = join(process.cwd(), 'knative');
  const out: k8s.KubernetesObject[] = [];
  const entries = await readdir(root, { withFileTypes: true });
  for (const family of entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    for (const file of (await readdir(join(root, family))).filter((f) => f.endsWith('.yaml')).sort()) {
      for (const doc of parseAllDocuments(await readFile(join(root, family, file), 'utf8'))) {
        const obj = doc.toJS() as k8s.KubernetesObject | null;
        if (obj?.kind && (RBAC_KINDS.has(obj.kind) || obj.kind === 'Namespace')) out.push(obj);
      }
    }
  }
  return out;
}

export interface FunctionIdentity {
  token: string;
  /** Path of a kubeconfig file with only the function's token. */
  kubeconfig: string;
  /** A client acting as the function's ServiceAccount. */
  client: KubeClient;
}

export interface Attributes {
  verb: string;
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface RbacCluster {
  srv: ApiServer;
  redis: TestRedis;
  /** A temporary directory (kubeconfig files), removed by stop(). */
  dir: string;
  /** The admin's client (system:masters) of the main cluster. */
  admin: KubeClient;
  objects: k8s.KubernetesObjectApi;
  core: k8s.CoreV1Api;
  ensureNamespace(name: string): Promise<void>;
  /** A token of ServiceAccount landscape-system/<name> (TokenRequest). */
  tokenFor(name: string): Promise<string>;
  /** The function's token, a kubeconfig file with only it, and a client acting as it. */
  identity(name: string): Promise<FunctionIdentity>;
  /** SelfSubjectAccessReview with `token`: is the request allowed? */
  can(token: string, attrs: Attributes): Promise<boolean>;
  /** A direct request with `token` to the main cluster; returns the HTTP status. */
  statusOf(token: string, path: string, method?: string): Promise<number>;
  /** What is requeued for the function `target` in Redis. */
  queued(target: string): Promise<RequeueItem[]>;
  /** The Events of the objects named `name` (in `namespace`, or every one): count by reason. */
  eventReasons(name: string, namespace?: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

interface Kubeconfig {
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
}

export interface RbacClusterOptions {
  /** Options of the main cluster besides `name` and `rbac`. */
  main?: Omit<ClusterSpec, 'name' | 'rbac'>;
  /** Further clusters (no RBAC unless they say so), e.g. a Target's. */
  others?: ClusterSpec[];
}

async function ensureNamespaceWith(admin: KubeClient, name: string): Promise<void> {
  try {
    await admin.create(GVK.Namespace, { metadata: { name } });
  } catch (err) {
    if ((err as { code?: number }).code !== 409 && !String(err).includes('AlreadyExists')) throw err;
  }
}

/**
 * Starts the API server (main cluster `main` with RBAC enforced), a redis-server, and applies the
 * RBAC objects of every knative/ manifest.
 */
export async function startRbacCluster(opts: RbacClusterOptions = {}): Promise<RbacCluster> {
  const srv = await startApiServer({
    crdFiles: crdFiles(),
    clusters: [{ ...opts.main, name: 'main', rbac: true }, ...(opts.others ?? [])],
  });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'rbac-security-'));
  const kc = new k8s.KubeConfig();
  kc.loadFromString(srv.cluster().kubeconfigYaml());
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const admin = createKubeClient(kubeConfigFromYaml(srv.cluster().kubeconfigYaml()), {
    fieldManager: 'admin',
  });
  const ensureNamespace = (name: string): Promise<void> => ensureNamespaceWith(admin, name);

  const tokenFor = async (name: string): Promise<string> => {
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: SYSTEM,
      name,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } },
    });
    return tr.status!.token;
  };

  /** The main cluster's kubeconfig with the admin token replaced by `token`. */
  const kubeconfigYamlFor = (token: string): string => {
    const config = parse(srv.cluster().kubeconfigYaml()) as Kubeconfig;
    config.users = [{ name: 'fn', user: { token } }];
    for (const c of config.contexts) c.context = { ...c.context, user: 'fn', namespace: SYSTEM };
    return stringify(config);
  };

  const identity = async (name: string): Promise<FunctionIdentity> => {
    const token = await tokenFor(name);
    const yaml = kubeconfigYamlFor(token);
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    await writeFile(kubeconfig, yaml);
    return { token, kubeconfig, client: createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: name }) };
  };

  const can = async (token: string, attrs: Attributes): Promise<boolean> => {
    const r = await rawRequest(
      srv,
      srv.cluster().name,
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        method: 'POST',
        token,
        body: JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: attrs },
        }),
      },
    );
    if (r.status !== 201 && r.status !== 200)
      throw new Error(`SelfSubjectAccessReview: ${r.status} ${r.text}`);
    return (r.json as { status: { allowed: boolean } }).status.allowed === true;
  };

  const statusOf = async (token: string, path: string, method = 'GET'): Promise<number> =>
    (await rawRequest(srv, srv.cluster().name, path, { method, token })).status;

  const queued = async (target: string): Promise<RequeueItem[]> => {
    const handle = lazyRedis({ url: redis.url });
    try {
      return await pending(await handle.get(), target);
    } finally {
      await handle.close();
    }
  };

  const eventReasons = async (name: string, namespace?: string): Promise<Record<string, number>> => {
    const list = await admin.list<{
      metadata: object;
      reason: string;
      count?: number;
      involvedObject: { name: string };
    }>(GVK.Event, namespace);
    const out: Record<string, number> = {};
    for (const e of list.items.filter((x) => x.involvedObject.name === name))
      out[e.reason] = (out[e.reason] ?? 0) + (e.count ?? 1);
    return out;
  };

  const stop = async (): Promise<void> => {
    await redis.stop();
    await srv.stop();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const all = await rbacObjects();
    for (const ns of all.filter((o) => o.kind === 'Namespace')) await objects.create(ns);
    await ensureNamespace(SYSTEM);
    const namespaces = new Set(all.map((o) => o.metadata?.namespace).filter((n): n is string => !!n));
    for (const ns of namespaces) await ensureNamespace(ns);
    for (const obj of all.filter((o) => o.kind !== 'Namespace')) await objects.create(obj);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    srv,
    redis,
    dir,
    admin,
    objects,
    core,
    ensureNamespace,
    tokenFor,
    identity,
    can,
    statusOf,
    queued,
    eventReasons,
    stop,
  };
}

/** True when `read` fails with NotFound, false when it succeeds. */
export function gone<T>(read: Promise<T>): Promise<boolean> {
  return read.then(() => false, isNotFound);
}

/** An API-server source event (Reference mode) of an object; no namespace for cluster-scoped ones. */
export function refEvent(
  kind: string,
  name: string,
  action: string,
  namespace = '',
): Record<string, unknown> {
  const apiVersion = Object.values(GVK).find((g) => g.kind === kind)?.apiVersion ?? '';
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'https://apiserver',
    type: `dev.knative.apiserver.ref.${action}`,
    kind,
    apiversion: apiVersion,
    name,
    ...(namespace ? { namespace } : {}),
    data: { kind, ...(namespace ? { namespace } : {}), name, apiVersion },
  };
}

/** The production config of a function: `config.yaml` of the ConfigMap `<name>-config` of its manifest. */
export async function manifestConfig(family: string, name: string): Promise<string> {
  const text = await readFile(join(process.cwd(), 'knative', family, `${name}.yaml`), 'utf8');
  for (const doc of parseAllDocuments(text)) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string }; data?: Record<string, string> };
    const config =
      obj?.kind === 'ConfigMap' && obj.metadata?.name === `${name}-config` && obj.data?.['config.yaml'];
    if (config) return config;
  }
  throw new Error(`knative/${family}/${name}.yaml has no ConfigMap ${name}-config with a config.yaml`);
}

/** A logger whose lines are kept (check them with forbiddenLines). */
export function capturingLogger(name: string): {
  log: ReturnType<typeof createLogger>;
  lines: string[];
} {
  const lines: string[] = [];
  const log = createLogger({
    name,
    level: 'debug',
    destination: { write: (l: string) => void lines.push(l) },
  });
  return { log, lines };
}

/** The lines that mention a 403. */
export function forbiddenLines(lines: string[]): string[] {
  return lines.filter((l) => /\b403\b|forbidden/i.test(l));
}
