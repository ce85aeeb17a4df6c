/**
 * `GET /metrics` in the Prometheus text format, as kube-apiserver serves it to `kubectl get --raw
 * /metrics` and to Prometheus (RBAC: the non-resource URL `/metrics`, which `system:monitoring`
 * and cluster-admin may get). Two of its stable series:
 *
 * - `apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}`
 *   of every resource request, counted when its response is finished
 *   (k8s.io/apiserver/pkg/endpoints/metrics/metrics.go: MonitorRequest, CleanVerb — LIST and
 *   WATCH for collection GETs, APPLY for server-side apply — CleanScope and CleanDryRun);
 * - `apiserver_storage_objects{resource}`: the objects stored per resource, `<plural>.<group>`
 *   (k8s.io/apiserver/pkg/storage/etcd3/metrics).
 *
 * Not served: latency histograms, etcd, workqueue, Go runtime and process series.
 */
import type { IncomingMessage } from 'node:http';
import { requestInfo, type RequestInfo } from '../auth/rbac/request-info.js';

const VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
  proxy: 'CONNECT',
};
const APPLY_PATCH = 'application/apply-patch+yaml';

const LABELS = [
  'code',
  'component',
  'dry_run',
  'group',
  'resource',
  'scope',
  'subresource',
  'verb',
  'version',
];

/** CleanScope: a named object (or a create) is "resource", else the namespace, else the cluster. */
function scopeOf(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  return info.namespace !== '' ? 'namespace' : 'cluster';
}

function verbOf(info: RequestInfo, req: IncomingMessage): string {
  const verb = VERBS[info.verb] ?? info.verb.toUpperCase();
  if (verb !== 'PATCH') return verb;
  const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  return contentType === APPLY_PATCH ? 'APPLY' : verb;
}

/** A label value with Prometheus' escapes (backslash, double quote, newline). */
function labelValue(v: string): string {
  return v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

/** Separates the label values of a request key (no label value holds it). */
const SEP = '\u0000';

/** `code="200",component="apiserver",...` of a request key. */
function labelSet(key: string): string {
  const values = key.split(SEP);
  return LABELS.map((l, i) => `${l}="${labelValue(values[i])}"`).join(',');
}

export class RequestMetrics {
  /** Request key → its count (an object, so that counting again is one lookup). */
  private readonly requests = new Map<string, { n: number }>();

  /**
   * Counts a request when its response is finished (with the code it was answered). The key is
   * the label values in LABELS order, joined by a byte no label holds; escaping waits for render.
   */
  observe(req: IncomingMessage, url: URL, code: number): void {
    const info = requestInfo(req.method ?? 'GET', url);
    if (!info.isResourceRequest || info.error !== undefined) return;
    const dryRun =
      url.search.includes('dryRun') && url.searchParams.getAll('dryRun').includes('All') ? 'All' : '';
    // the values in LABELS order: code, component, dry_run, group, resource, scope, subresource, verb, version
    const key = `${code}${SEP}apiserver${SEP}${dryRun}${SEP}${info.apiGroup}${SEP}${info.resource}${SEP}${scopeOf(info)}${SEP}${info.subresource}${SEP}${verbOf(info, req)}${SEP}${info.apiVersion}`;
    const counter = this.requests.get(key);
    if (counter) counter.n++;
    else this.requests.set(key, { n: 1 });
  }

  /** The exposition text; `stored` gives the object count per storage key (`<group>/<plural>`). */
  render(stored: ReadonlyArray<[key: string, count: number]>): string {
    const lines = [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      '# TYPE apiserver_request_total counter',
      ...[...this.requests]
        .map(([k, { n }]) => [labelSet(k), n] as const)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([labels, n]) => `apiserver_request_total{${labels}} ${n}`),
      '# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      '# TYPE apiserver_storage_objects gauge',
      ...stored
        .map(([key, n]): [string, number] => {
          const [group, plural] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
          return [group === '' ? plural : `${plural}.${group}`, n];
        })
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([resource, n]) => `apiserver_storage_objects{resource="${labelValue(resource)}"} ${n}`),
    ];
    return `${lines.join('\n')}\n`;
  }
}
