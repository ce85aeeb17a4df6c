/**
 * What every function does around its handler (DESIGN "Configuration", "Shape"): a lazy
 * per-process instance that reads CONFIG_FILE once, checks it with the function's `loadConfig`,
 * builds its clients once, and — when the file is unreadable or invalid — logs every problem once
 * and acknowledges events without doing anything (no crash loop, nothing written). Plus the
 * reading of the object an event points at.
 */
import { readFile } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigResult } from '../config/index.js';
import { readConfigFile } from '../config/index.js';
import { createKubeClient, kubeConfigFromEnv, kubeConfigInCluster, type KubeClient } from '../kube/index.js';
import { createLogger, isLogLevel, type Logger } from '../log/index.js';
import { podName } from './pod.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface FunctionDefinition<C, D> {
  name: string;
  loadConfig(text: string | undefined, env: Env): ConfigResult<C>;
  /** Builds the instance's dependencies (clients) once the config is known; no I/O needed yet. */
  setup(args: { config: C; env: Env; log: Logger }): D | Promise<D>;
  close?(deps: D): Promise<void>;
}

export interface InstanceOptions {
  env?: () => Env;
  readFile?: (path: string) => Promise<string>;
  log?: Logger;
}

export type Ready<C, D> = { ok: true; config: C; deps: D; log: Logger } | { ok: false; log: Logger };

export interface FunctionInstance<C, D> {
  ready(): Promise<Ready<C, D>>;
  close(): Promise<void>;
}

function defaultLogger(name: string, env: Env): Logger {
  const level = env['LOG_LEVEL'];
  return createLogger({
    name,
    level: isLogLevel(level) ? level : 'info',
    fields: podName(env) ? { pod: podName(env) } : {},
  });
}

export function createInstance<C, D>(
  def: FunctionDefinition<C, D>,
  opts: InstanceOptions = {},
): FunctionInstance<C, D> {
  let ready: Promise<Ready<C, D>> | undefined;
  const init = async (): Promise<Ready<C, D>> => {
    const env = (opts.env ?? ((): Env => process.env))();
    const log = opts.log ?? defaultLogger(def.name, env);
    let text: string | undefined;
    let file: string | undefined;
    try {
      ({ text, path: file } = await readConfigFile(env, opts.readFile ?? ((p) => readFile(p, 'utf8'))));
    } catch (err) {
      log.error('config file unreadable; events are acknowledged and nothing is done', {
        error: String(err),
      });
      return { ok: false, log };
    }
    const result = def.loadConfig(text, env);
    if (!result.ok) {
      log.error('invalid config; events are acknowledged and nothing is done', {
        file,
        problems: result.problems,
      });
      return { ok: false, log };
    }
    try {
      const deps = await def.setup({ config: result.config, env, log });
      return { ok: true, config: result.config, deps, log };
    } catch (err) {
      log.error('cannot set up; events are acknowledged and nothing is done', { error: String(err) });
      return { ok: false, log };
    }
  };
  return {
    ready: () => (ready ??= init()),
    async close(): Promise<void> {
      const r = await ready;
      if (r?.ok && def.close) await def.close(r.deps);
    },
  };
}

/** The cluster a function works on: KUBECONFIG when set (the embedded landscape), else in-cluster. */
export function hostKubeConfig(env: Env): KubeConfig {
  const file = env['KUBECONFIG'];
  if (file) return kubeConfigFromEnv(file);
  return kubeConfigInCluster({
    host: env['KUBERNETES_SERVICE_HOST'] ?? '',
    port: env['KUBERNETES_SERVICE_PORT'] ?? '443',
  });
}

/**
 * A client of the function's own cluster (hostKubeConfig): it keeps its connections alive, so a
 * replica pays for the TLS handshake once rather than on every request (the deployers and prober
 * benches measured about a third of the CPU in per-request handshakes without it).
 */
export function hostKubeClient(env: Env, fieldManager: string): KubeClient {
  return createKubeClient(hostKubeConfig(env), { fieldManager, keepAlive: true, retryTransient: true });
}

/** The object an event points at (`namespace`, `name`, optional `uid` attributes). */
export interface EventObjectRef {
  namespace: string;
  name: string;
  uid?: string;
}

function stringField(...sources: Record<string, unknown>[]): (key: string) => string | undefined {
  return (key) => {
    for (const source of sources) {
      const v = source[key];
      if (typeof v === 'string' && v !== '') return v;
    }
    return undefined;
  };
}

/** An object name as the API server accepts it for the kinds events name (a DNS subdomain). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** A namespace name (a DNS label). */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Kinds the functions get events for that have no namespace. */
const CLUSTER_SCOPED_KINDS = new Set(['Seed', 'Cluster', 'Node', 'Namespace', 'CloudProfile', 'Project']);

export interface EventObjectRefOptions {
  /** The object's kind: a namespaced kind without a namespace names no object. */
  kind?: string;
  /** The object is namespaced whatever the kind says. */
  namespaced?: boolean;
}

function isNamespaced(opts: EventObjectRefOptions): boolean {
  return opts.namespaced ?? (opts.kind !== undefined && !CLUSTER_SCOPED_KINDS.has(opts.kind));
}

function validRef(name: string, namespace: string, namespaced: boolean): boolean {
  if (name.length === 0 || name.length > 253 || !OBJECT_NAME.test(name)) return false;
  if (namespace === '') return !namespaced;
  return namespace.length <= 63 && NAMESPACE_NAME.test(namespace);
}

/**
 * The object of an API-server, reconcile or requeue event (attributes first, then data);
 * undefined when the event names none — or names one no API server could hold (a name that is not
 * a DNS subdomain of at most 253 characters, a namespace that is not a DNS label, a namespaced
 * kind without a namespace), so a bad event is acknowledged instead of retried forever.
 */
export function eventObjectRef(ce: unknown, opts: EventObjectRefOptions = {}): EventObjectRef | undefined {
  if (typeof ce !== 'object' || ce === null) return undefined;
  const e = ce as Record<string, unknown>;
  const data = (typeof e.data === 'object' && e.data !== null ? e.data : {}) as Record<string, unknown>;
  const field = stringField(e, data);
  const name = field('name') ?? '';
  const namespace = field('namespace') ?? '';
  if (!validRef(name, namespace, isNamespaced(opts))) return undefined;
  const uid = stringField(e)('uid');
  return { namespace, name, ...(uid ? { uid } : {}) };
}

/** The CloudEvent `type`, or '' */
export function eventType(ce: unknown): string {
  return typeof ce === 'object' && ce !== null && typeof (ce as { type?: unknown }).type === 'string'
    ? (ce as { type: string }).type
    : '';
}
