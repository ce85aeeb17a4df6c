/**
 * What every function does around its handler (DESIGN "Configuration", "Shape"): a lazy
 * per-process instance that reads CONFIG_FILE, checks it with the function's `loadConfig` and
 * builds its clients once. When the file is unreadable or invalid, or the set-up fails, no event is
 * acknowledged: `ready()` throws a `FunctionNotReadyError`, the Functions Framework answers 500,
 * and the broker retries, then dead-letters (knative/eventing pkg/kncloudevents: SelectiveRetry
 * retries a 5xx, a 2xx is final). Every problem is logged once per instance (again only when the
 * problems change); while the file is bad it is read again on an event at most every
 * `retryConfigMs` (5 s), because the kubelet updates a mounted ConfigMap in place
 * (kubernetes/kubernetes pkg/volume/util/atomic_writer.go swaps the `..data` link), so a fixed
 * ConfigMap heals the replicas without a new revision. A good config is kept for the
 * instance's life. Plus the reading of the object an event points at.
 */
// `promises` read at the call: node:fs/promises (with readline's interface) loads on the first config file read
import { promises as fsPromises } from 'node:fs';
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

export interface InstanceOptions extends InstanceClock {
  env?: () => Env;
  readFile?: (path: string) => Promise<string>;
  log?: Logger;
}

/** A ready instance (`ok` is always true: an instance that is not ready throws instead). */
export interface Ready<C, D> {
  ok: true;
  config: C;
  deps: D;
  log: Logger;
}

export interface FunctionInstance<C, D> {
  /** The config and dependencies; rejects with a FunctionNotReadyError while they cannot be had. */
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

export type NotReadyReason = 'unreadable' | 'invalid' | 'setup';

const REASON_TEXT: Record<NotReadyReason, string> = {
  unreadable: 'config file unreadable',
  invalid: 'invalid config',
  setup: 'cannot set up',
};

/**
 * Thrown for every event while the function's config cannot be read or used: the Functions
 * Framework answers 500, so the event is retried and then dead-lettered, never acknowledged.
 */
export class FunctionNotReadyError extends Error {
  override readonly name = 'FunctionNotReadyError';
  constructor(
    readonly functionName: string,
    readonly reason: NotReadyReason,
    readonly problems: readonly string[],
    readonly file?: string,
  ) {
    const where = file ? ` (${file})` : '';
    const first =
      problems.length > 0
        ? `: ${problems[0].split('\n')[0]}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`
        : '';
    super(
      `${functionName}: ${REASON_TEXT[reason]}${where}${first}; the event is not handled (answered 500, retried)`,
    );
  }
}

/** While the config is bad, it is read again on an event at most this often. */
export const DEFAULT_RETRY_CONFIG_MS = 5_000;

export interface InstanceClock {
  /** The time in milliseconds (default Date.now). */
  nowMs?: () => number;
  /** How long a bad config is trusted to be still bad before it is read again. */
  retryConfigMs?: number;
}

interface Attempt<C, D> {
  ready?: Ready<C, D>;
  error?: FunctionNotReadyError;
}

/** Reads, checks and sets up once; any failure is a FunctionNotReadyError (pure given `opts`). */
async function attempt<C, D>(
  def: FunctionDefinition<C, D>,
  env: Env,
  log: Logger,
  read: (p: string) => Promise<string>,
): Promise<Attempt<C, D>> {
  let text: string | undefined;
  let file: string | undefined;
  try {
    ({ text, path: file } = await readConfigFile(env, read));
  } catch (err) {
    return { error: new FunctionNotReadyError(def.name, 'unreadable', [String(err)], env['CONFIG_FILE']) };
  }
  const result = def.loadConfig(text, env);
  if (!result.ok) return { error: new FunctionNotReadyError(def.name, 'invalid', result.problems, file) };
  try {
    const deps = await def.setup({ config: result.config, env, log });
    return { ready: { ok: true, config: result.config, deps, log } };
  } catch (err) {
    return { error: new FunctionNotReadyError(def.name, 'setup', [String(err)], file) };
  }
}

function logNotReady(log: Logger, e: FunctionNotReadyError): void {
  log.error(
    `${REASON_TEXT[e.reason]}; events are answered 500 (retried, then dead-lettered) until it is fixed`,
    {
      ...(e.file ? { file: e.file } : {}),
      ...(e.reason === 'invalid' ? { problems: e.problems } : { error: e.problems[0] }),
    },
  );
}

export function createInstance<C, D>(
  def: FunctionDefinition<C, D>,
  opts: InstanceOptions = {},
): FunctionInstance<C, D> {
  const now = opts.nowMs ?? Date.now;
  const retryMs = opts.retryConfigMs ?? DEFAULT_RETRY_CONFIG_MS;
  const read = opts.readFile ?? ((p: string): Promise<string> => fsPromises.readFile(p, 'utf8'));
  let good: Ready<C, D> | undefined;
  let failed: { error: FunctionNotReadyError; at: number; logged: string } | undefined;
  let pending: Promise<Ready<C, D>> | undefined;

  const tryOnce = async (): Promise<Ready<C, D>> => {
    const env = (opts.env ?? ((): Env => process.env))();
    const log = opts.log ?? defaultLogger(def.name, env);
    const r = await attempt(def, env, log, read);
    if (r.ready) {
      if (failed) log.info('config fixed; events are handled again', { file: env['CONFIG_FILE'] });
      failed = undefined;
      good = r.ready;
      return good;
    }
    const error = r.error!;
    const key = JSON.stringify([error.reason, error.file, error.problems]);
    if (failed?.logged !== key) logNotReady(log, error);
    failed = { error, at: now(), logged: key };
    throw error;
  };

  return {
    ready: (): Promise<Ready<C, D>> => {
      if (good) return Promise.resolve(good);
      if (failed && now() - failed.at < retryMs) return Promise.reject(failed.error);
      pending ??= tryOnce().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    async close(): Promise<void> {
      await pending?.catch(() => undefined);
      if (good && def.close) await def.close(good.deps);
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

/** The dependencies most functions start from: a client of their own cluster, the clock, their logger. */
export interface KubeFunctionDeps {
  client: KubeClient;
  now: () => Date;
  log: Logger;
}

/** KubeFunctionDeps of the function `name` (its name is the client's field manager). */
export function kubeFunctionDeps(name: string, env: Env, log: Logger): KubeFunctionDeps {
  return { client: hostKubeClient(env, name), now: () => new Date(), log };
}

/**
 * createInstance of a function whose dependencies are KubeFunctionDeps plus what `more` returns
 * (its own dependencies, and anything a test puts in place of the defaults).
 */
export function createKubeInstance<C, D extends KubeFunctionDeps>(
  name: string,
  loadConfig: FunctionDefinition<C, D>['loadConfig'],
  more: (args: {
    config: C;
    env: Env;
    log: Logger;
  }) => Omit<D, keyof KubeFunctionDeps> & Partial<KubeFunctionDeps>,
  opts: InstanceOptions = {},
  /** Releases what `more` opened (a Redis client) when the instance closes. */
  close?: FunctionDefinition<C, D>['close'],
): FunctionInstance<C, D> {
  return createInstance<C, D>(
    {
      name,
      loadConfig,
      setup: ({ config, env, log }) =>
        ({ ...kubeFunctionDeps(name, env, log), ...more({ config, env, log }) }) as D,
      ...(close ? { close } : {}),
    },
    opts,
  );
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
