/**
 * Building a KubeConfig from a trusted source: a kubeconfig file, the value of KUBECONFIG (read by
 * the caller and passed in), in-cluster service-account credentials, or a YAML string. Targets,
 * which are user input, go through ./target.ts instead.
 */
import { isOneOf } from '@landscape/apimachinery';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError } from './errors.js';

export const KUBECONFIG_SOURCE_KINDS = ['file', 'env', 'inCluster', 'yaml'] as const;
export type KubeConfigSourceKind = (typeof KUBECONFIG_SOURCE_KINDS)[number];
export const isKubeConfigSourceKind: (value: unknown) => value is KubeConfigSourceKind =
  isOneOf(KUBECONFIG_SOURCE_KINDS);

export interface ContextOption {
  /** Use this context instead of the file's current-context. */
  context?: string;
}

export interface InClusterOptions {
  /** The caller's KUBERNETES_SERVICE_HOST. */
  host: string;
  /** The caller's KUBERNETES_SERVICE_PORT. */
  port: string | number;
  /** Prefix for the service-account files (tests); default ''. */
  pathPrefix?: string;
}

export type KubeConfigSource =
  | ({ kind: 'file'; path: string } & ContextOption)
  | ({ kind: 'env'; value: string } & ContextOption)
  | ({ kind: 'inCluster' } & InClusterOptions)
  | ({ kind: 'yaml'; yaml: string } & ContextOption);

/**
 * client-node 1.4 refuses every request to an `http://` server unless the cluster also says
 * `insecure-skip-tls-verify: true` ("HTTP protocol is not allowed when skipTLSVerify is not set or
 * false"); kubectl and client-go accept such kubeconfigs. There is no TLS to verify on plain HTTP,
 * so the flag is set for those clusters and a kubeconfig that works with kubectl works here.
 */
export function allowPlainHttp(kc: KubeConfig): KubeConfig {
  kc.clusters = kc.clusters.map((c) => (c.server.startsWith('http://') ? { ...c, skipTLSVerify: true } : c));
  return kc;
}

function finish(kc: KubeConfig, source: string, context: string | undefined): KubeConfig {
  allowPlainHttp(kc);
  if (context !== undefined) {
    if (!kc.getContextObject(context))
      throw new KubeConfigError(source, `context ${JSON.stringify(context)} not found`);
    kc.setCurrentContext(context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError(source, 'no current cluster');
  return kc;
}

function attempt(source: string, load: () => void): void {
  try {
    load();
  } catch (err) {
    throw new KubeConfigError(source, err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** A kubeconfig file; relative file references in it resolve against its directory. */
export function kubeConfigFromFile(file: string, options: ContextOption = {}): KubeConfig {
  const kc = new KubeConfig();
  attempt(`file ${file}`, () => kc.loadFromFile(file));
  return finish(kc, `file ${file}`, options.context);
}

/** A trusted kubeconfig as YAML text (never a Target's: use kubeConfigFromTargetKubeconfig). */
export function kubeConfigFromYaml(yaml: string, options: ContextOption = {}): KubeConfig {
  const kc = new KubeConfig();
  attempt('yaml', () => kc.loadFromString(yaml));
  return finish(kc, 'yaml', options.context);
}

/**
 * The value of KUBECONFIG (the caller reads the environment): one or more paths joined with the
 * platform's path delimiter. As kubectl merges them: the first file that sets a current-context
 * wins, and the first definition of a cluster, user or context name wins.
 */
export function kubeConfigFromEnv(value: string, options: ContextOption = {}): KubeConfig {
  const [first, ...rest] = value.split(path.delimiter).filter((f) => f !== '');
  if (first === undefined) throw new KubeConfigError('KUBECONFIG', 'empty');
  const kc = new KubeConfig();
  attempt(`file ${first}`, () => kc.loadFromFile(first));
  for (const file of rest) {
    const next = new KubeConfig();
    attempt(`file ${file}`, () => next.loadFromFile(file));
    mergeFirstWins(kc, next);
  }
  return finish(kc, 'KUBECONFIG', options.context);
}

function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  if (!into.currentContext && from.currentContext) into.setCurrentContext(from.currentContext);
  for (const c of from.clusters) if (!into.getCluster(c.name)) into.addCluster(c);
  for (const u of from.users) if (!into.getUser(u.name)) into.addUser(u);
  for (const x of from.contexts) if (!into.getContextObject(x.name)) into.addContext(x);
}

/**
 * In-cluster credentials: the service-account token (re-read as it rotates) and CA under
 * `/var/run/secrets/kubernetes.io/serviceaccount/`, the API server at host:port as the caller read
 * them from KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT.
 */
export function kubeConfigInCluster(options: InClusterOptions): KubeConfig {
  const kc = new KubeConfig();
  attempt('in-cluster', () => kc.loadFromCluster(options.pathPrefix ?? ''));
  const port = String(options.port);
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  const host =
    options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  kc.clusters = kc.clusters.map((c) => ({ ...c, server: `${scheme}://${host}:${port}` }));
  return finish(kc, 'in-cluster', undefined);
}

/** One entry point for all trusted sources. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  switch (source.kind) {
    case 'file':
      return kubeConfigFromFile(source.path, source);
    case 'env':
      return kubeConfigFromEnv(source.value, source);
    case 'inCluster':
      return kubeConfigInCluster(source);
    case 'yaml':
      return kubeConfigFromYaml(source.yaml, source);
  }
}
