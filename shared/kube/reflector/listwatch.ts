/**
 * The I/O of list and watch: a kind resolved to its URL (the product's GVK table, else discovery),
 * a paged list, and a watch stream read line by line over raw HTTPS with the kubeconfig's
 * credentials, over the caller's keep-alive agents (a reflector's) or else the kubeconfig's own
 * agent (client-node's: a new TLS connection per request).
 */
import http from 'node:http';
import https from 'node:https';
import { ApiException } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { gvkFor } from '../../api/gvk.js';
import { groupVersionPath, kubeRequestJson, KubeRequestError, queryString } from '../index.js';
import type { QueryValue } from '../index.js';
import { lineSplitter } from '../../text/lines.js';
import { fetchOptions, type KeepAliveAgents } from '../http.js';
import type { ResolvedKind, WatchedObject } from './types.js';

/** A kind the API server does not serve. */
export class UnknownKindError extends KubeRequestError {}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

interface ApiResourceList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

/** apiVersion/kind → plural and scope: from the product's table, else from the server's discovery. */
export async function resolveKind(kc: KubeConfig, apiVersion: string, kind: string): Promise<ResolvedKind> {
  const known = gvkFor(apiVersion, kind);
  if (known) return { ...known };
  const { group, version } = splitApiVersion(apiVersion);
  const list = await kubeRequestJson<ApiResourceList>(kc, {
    method: 'GET',
    path: groupVersionPath({ group, version }),
  });
  const res = list.resources?.find((r) => r.kind === kind && !r.name.includes('/'));
  if (!res) throw new UnknownKindError(`${apiVersion} ${kind}: not served by the API server`);
  return { apiVersion, kind, group, version, plural: res.name, namespaced: res.namespaced };
}

/** The collection path, across namespaces when namespace is undefined. */
export function collectionPath(kind: ResolvedKind, namespace: string | undefined): string {
  const scope = kind.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${groupVersionPath(kind)}${scope}/${kind.plural}`;
}

interface ObjectListBody {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: WatchedObject[];
}

export interface ListResult {
  items: WatchedObject[];
  resourceVersion: string;
}

/** Every object (paged), with apiVersion/kind filled in as a watch would send them. */
export async function listAll(
  kc: KubeConfig,
  kind: ResolvedKind,
  path: string,
  labelSelector: string,
  keepAlive?: KeepAliveAgents,
  pageSize = 500,
): Promise<ListResult> {
  const items: WatchedObject[] = [];
  let cont: string | undefined;
  let resourceVersion = '';
  do {
    const query = { labelSelector, limit: pageSize, continue: cont };
    const page = await kubeRequestJson<ObjectListBody>(kc, { method: 'GET', path, query }, keepAlive);
    for (const item of page.items ?? [])
      items.push({ apiVersion: kind.apiVersion, kind: kind.kind, ...item });
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { items, resourceVersion };
}

export interface WatchLine {
  type: string;
  object: unknown;
}

export interface WatchRequest {
  path: string;
  query: Readonly<Record<string, QueryValue>>;
  signal: AbortSignal;
  /** Socket inactivity limit (bookmarks keep a quiet watch alive). */
  idleTimeoutMs: number;
  /** Keep-alive agents to send it over (else the kubeconfig's agent: a connection per watch). */
  agents?: KeepAliveAgents;
  onLine: (line: WatchLine) => void;
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function streamLines(res: http.IncomingMessage, onLine: (line: WatchLine) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = lineSplitter((text) => {
      if (text.trim() === '') return;
      let parsed: WatchLine;
      try {
        parsed = JSON.parse(text) as WatchLine;
      } catch {
        return; // a torn line: the resync and the next re-list cover it
      }
      onLine(parsed);
    });
    res.setEncoding('utf8');
    res.on('data', lines.push);
    // a reset connection ("aborted") is an error, not an end: its torn last line is not parsed
    res.on('error', reject);
    res.on('end', () => {
      lines.end();
      resolve();
    });
    // destroyed without an error or an end (after 'end' this settles nothing)
    res.on('close', () => reject(new Error('watch stream closed before its end')));
  });
}

/**
 * One watch request: resolves when the server ends the stream, rejects on a network error or a
 * non-2xx answer (client-node's ApiException, so shared/kube's isGone works).
 */
export async function watchOnce(kc: KubeConfig, req: WatchRequest): Promise<void> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeRequestError('kubeconfig has no current cluster');
  const url = new URL(`${cluster.server}${req.path}${queryString({ ...req.query, watch: 'true' })}`);
  const { headers, agent: given } = await fetchOptions(kc, url);
  const agent = req.agents ? req.agents.agentFor(given, url) : given;
  headers['accept'] = 'application/json';
  const transport = url.protocol === 'http:' ? http : https;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const r = transport.request(url, { method: 'GET', headers, agent, signal: req.signal }, resolve);
    r.setTimeout(req.idleTimeoutMs, () =>
      r.destroy(new Error(`watch ${req.path}: idle for ${req.idleTimeoutMs} ms`)),
    );
    r.on('error', reject);
    r.end();
  });
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    throw new ApiException<string>(status, `GET ${req.path} (watch)`, await readBody(res), {});
  }
  await streamLines(res, req.onLine);
}
