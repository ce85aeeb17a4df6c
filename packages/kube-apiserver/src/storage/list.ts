/**
 * Lists with paging as the API server does them: `limit` cuts a page, `continue` resumes at the
 * next key of the same snapshot (the first page's resourceVersion), `remainingItemCount` is told
 * only when no selector filters, and a continue token older than the kept history is 410 Expired
 * with a fresh token in the Status to go on inconsistently.
 */
import { badRequest, expired } from '../api/errors.js';
import type { Store } from './store.js';
import type { KubeObject } from '../api/types.js';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  rv: number;
  start: string;
}

const TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw new Error('shape');
    return parsed;
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or missing fields');
  }
}

export function keyOf(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!;
}

/** The snapshot a page is cut from: now, or the resourceVersion of the continue token. */
function snapshot(
  store: Store,
  resource: string,
  namespace: string | undefined,
  token?: string,
): { rv: number; start: string; objects: KubeObject[] } {
  if (!token) return { rv: store.currentRV, start: '', objects: store.list(resource, namespace) };
  const t = decodeContinue(token);
  const objects = store.listAt(resource, namespace, t.rv);
  if (!objects) {
    const err = expired(TOO_OLD);
    err.metadata = { continue: encodeContinue({ rv: store.currentRV, start: t.start }) };
    throw err;
  }
  return { rv: t.rv, start: t.start, objects };
}

export function listPage(
  store: Store,
  resource: string,
  namespace: string | undefined,
  opts: ListOptions,
  match: (o: KubeObject) => boolean,
): ListResult {
  const { rv, start, objects } = snapshot(store, resource, namespace, opts.continue);
  const all = objects.filter((o) => (!start || keyOf(o) > start) && match(o));
  const limit = opts.limit && opts.limit > 0 ? opts.limit : all.length;
  const items = all.slice(0, limit);
  const result: ListResult = { items, resourceVersion: String(rv) };
  if (all.length > limit) {
    result.continue = encodeContinue({ rv, start: keyOf(items[items.length - 1]) });
    if (!opts.labelSelector && !opts.fieldSelector) result.remainingItemCount = all.length - limit;
  }
  return result;
}
