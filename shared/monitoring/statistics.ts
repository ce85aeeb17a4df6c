/**
 * The I/O of the autoscaling statistics: list PodAutoscalers and HPAs, fetch the embedded
 * activator's `/status`, and log one "HPA Statistics" line per function. A source that fails is
 * logged and skipped; the others are still logged. Nothing is thrown.
 *
 *   const log = createLogger({ name: MONITORING_LOGGER_NAME });
 *   await collectStatistics([knativeSource(client, ns), hpaSource(client, ns)], log);
 */
import type { GroupVersionKind } from '../api/gvk.js';
import { GVK } from '../api/gvk.js';
import type { ObjectList } from '@landscape/apimachinery';
import type { ListOptions, ObjectLike } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { getJson } from './http-get.js';
import type { ActivatorStatusRow, HorizontalPodAutoscaler, HpaStatistics, PodAutoscaler } from './hpa.js';
import {
  fromActivator,
  HPA_STATISTICS_MSG,
  hpaStatistics,
  isHpaClass,
  knativeStatistics,
  POD_AUTOSCALER_GVK,
  statisticsFields,
} from './hpa.js';

/** What the collectors need of a KubeClient. */
export interface KubeLister {
  list<T extends ObjectLike>(
    gvk: GroupVersionKind,
    namespace?: string,
    options?: ListOptions,
  ): Promise<ObjectList<T>>;
}

export interface StatisticsSource {
  /** Named in the error line when the source fails, e.g. `podautoscalers in landscape`. */
  readonly name: string;
  collect(): Promise<HpaStatistics[]>;
}

/** The activator's `/status` is not what local/activator serves. */
export class ActivatorStatusError extends Error {
  override readonly name = 'ActivatorStatusError';
  readonly transient = true;
}

const PAGE = 500;

/** Every item of a list, page by page. */
export async function listAll<T extends ObjectLike>(
  client: KubeLister,
  gvk: GroupVersionKind,
  namespace: string,
): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const page = await client.list<T>(gvk, namespace, { limit: PAGE, ...(next ? { continue: next } : {}) });
    items.push(...page.items);
    next = page.metadata?.continue || undefined;
  } while (next);
  return items;
}

export function listPodAutoscalers(client: KubeLister, namespace: string): Promise<PodAutoscaler[]> {
  return listAll<PodAutoscaler>(client, POD_AUTOSCALER_GVK, namespace);
}

export function listHpas(client: KubeLister, namespace: string): Promise<HorizontalPodAutoscaler[]> {
  return listAll<HorizontalPodAutoscaler>(client, GVK.HorizontalPodAutoscaler, namespace);
}

const ROW_COUNTS = ['replicas', 'desired', 'inFlight', 'queued'] as const;

function isRow(value: unknown): value is ActivatorStatusRow {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  if (typeof r['name'] !== 'string' || typeof r['namespace'] !== 'string') return false;
  return ROW_COUNTS.every((k) => r[k] === undefined || typeof r[k] === 'number');
}

/** The rows of an activator `/status` body; throws ActivatorStatusError for anything else. */
export function parseActivatorStatus(body: unknown): ActivatorStatusRow[] {
  if (!Array.isArray(body)) throw new ActivatorStatusError('activator /status is not a JSON list');
  const bad = body.findIndex((r) => !isRow(r));
  if (bad >= 0) {
    throw new ActivatorStatusError(
      `activator /status row ${bad} is not {name, namespace, replicas, desired}`,
    );
  }
  return body as ActivatorStatusRow[];
}

export interface FetchActivatorOptions {
  /** Default a GET with node:http(s) (./http-get.ts), not the global fetch. */
  fetch?: typeof fetch;
  /** Default 5 s. */
  timeoutMs?: number;
}

/** GET `<baseUrl>/status` of the embedded activator. */
export async function fetchActivatorStatus(
  baseUrl: string,
  opts: FetchActivatorOptions = {},
): Promise<ActivatorStatusRow[]> {
  const url = new URL('status', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const timeoutMs = opts.timeoutMs ?? 5000;
  if (!opts.fetch) {
    const answer = await getJson(url, timeoutMs);
    if (answer.status < 200 || answer.status > 299)
      throw new ActivatorStatusError(`activator ${url.origin}${url.pathname} answered ${answer.status}`);
    return parseActivatorStatus(answer.body);
  }
  const res = await opts.fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok)
    throw new ActivatorStatusError(`activator ${url.origin}${url.pathname} answered ${res.status}`);
  return parseActivatorStatus(await res.json());
}

/** PodAutoscalers of a namespace (HPA-class ones with their HPA's cpu and memory), one line per Service. */
export function knativeSource(client: KubeLister, namespace: string): StatisticsSource {
  return {
    name: `podautoscalers in ${namespace}`,
    async collect(): Promise<HpaStatistics[]> {
      const pas = await listPodAutoscalers(client, namespace);
      const hpas = pas.some(isHpaClass) ? await listHpas(client, namespace) : [];
      return knativeStatistics(pas, hpas);
    },
  };
}

/** HPAs of a namespace that no PodAutoscaler owns. */
export function hpaSource(client: KubeLister, namespace: string): StatisticsSource {
  return {
    name: `horizontalpodautoscalers in ${namespace}`,
    async collect(): Promise<HpaStatistics[]> {
      return hpaStatistics(await listHpas(client, namespace));
    },
  };
}

/** The embedded activator's functions. */
export function activatorSource(baseUrl: string, opts: FetchActivatorOptions = {}): StatisticsSource {
  return {
    name: `activator ${baseUrl}`,
    async collect(): Promise<HpaStatistics[]> {
      return (await fetchActivatorStatus(baseUrl, opts)).map(fromActivator);
    },
  };
}

export interface CollectResult {
  /** Lines logged. */
  logged: number;
  /** Names of the sources that failed. */
  failed: string[];
}

/**
 * Asks every source at once and logs one "HPA Statistics" line per function (sources in the
 * order given). A failing source gives one error line and does not stop the others. Never throws.
 */
export async function collectStatistics(
  sources: readonly StatisticsSource[],
  log: Logger,
): Promise<CollectResult> {
  const results = await Promise.allSettled(sources.map((s) => Promise.resolve().then(() => s.collect())));
  const out: CollectResult = { logged: 0, failed: [] };
  results.forEach((r, i) => {
    const source = sources[i]?.name ?? String(i);
    if (r.status === 'rejected') {
      out.failed.push(source);
      const error = r.reason instanceof Error ? r.reason.message : String(r.reason);
      log.error('monitor: failed to collect autoscaling statistics', { source, error });
      return;
    }
    for (const row of r.value) {
      log.info(HPA_STATISTICS_MSG, statisticsFields(row));
      out.logged += 1;
    }
  });
  return out;
}
