/**
 * Test-only fault injection of one cluster (`cluster.faults`), off by default: a share of the
 * resource requests is answered as an overloaded or racing kube-apiserver would answer them —
 * 409 Conflict, 429 TooManyRequests (Retry-After: 1), 500 InternalError — or gets no answer at
 * all (the connection is cut; for a write, half of the time after the write was applied, which
 * is what tests a client's idempotency). Watches are never answered with a fault; with
 * `watchCloseMs` each one is ended early, cleanly, as the API server's watch timeout ends it.
 *
 * Only resource requests (after authentication) are eligible: health, version, discovery,
 * OpenAPI and access reviews are served as usual.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { conflict, internalError, MODIFIED_CONFLICT, StatusError } from '../api/errors.js';
import { isWatch, type ResourceRequest } from '../endpoints/request.js';

export const FAULT_KINDS = ['conflict', 'throttle', 'error', 'drop'] as const; // 409, 429, 500, dropped connection
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  /** Share (0..1) of eligible requests that get a fault instead of (or, for some drops, after) being served. */
  share: number;
  /** Picked uniformly per faulted request. */
  kinds: readonly FaultKind[];
  /** Only create/update/patch/delete requests are eligible. */
  writesOnly?: boolean;
  /** When set, every watch is ended (cleanly, as an API server's watch timeout) after a random 0..watchCloseMs. */
  watchCloseMs?: number;
  /** Injected randomness (default Math.random). */
  random?: () => number;
}

/** What happens to one request: a fault, and for a drop whether the request is served first. */
export type FaultDecision =
  { kind: 'conflict' | 'throttle' | 'error' } | { kind: 'drop'; afterApply: boolean };

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function isWriteMethod(method: string | undefined): boolean {
  return (WRITE_METHODS as readonly string[]).includes(method ?? '');
}

function checkSpec(spec: FaultSpec): void {
  if (!(spec.share >= 0 && spec.share <= 1))
    throw new Error(`fault share must be in 0..1, got ${spec.share}`);
  const unknown = spec.kinds.find((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw new Error(`unknown fault kind "${String(unknown)}"`);
  if (spec.share > 0 && spec.kinds.length === 0)
    throw new Error('faults with a share > 0 need at least one kind');
  if (spec.watchCloseMs !== undefined && !(spec.watchCloseMs >= 0))
    throw new Error(`watchCloseMs must be ≥ 0, got ${spec.watchCloseMs}`);
}

export class FaultInjector {
  private current?: FaultSpec;
  private readonly counted: Record<FaultKind | 'watchClosed', number> = {
    conflict: 0,
    throttle: 0,
    error: 0,
    drop: 0,
    watchClosed: 0,
  };

  /**
   * Switches faults on with `spec` (replacing any earlier one; the counts start again from 0), or
   * off with undefined (the counts stay, to be read).
   */
  set(spec: FaultSpec | undefined): void {
    if (spec) {
      checkSpec(spec);
      for (const k of Object.keys(this.counted) as (keyof typeof this.counted)[]) this.counted[k] = 0;
    }
    this.current = spec ? { ...spec, kinds: [...spec.kinds] } : undefined;
  }

  get spec(): FaultSpec | undefined {
    return this.current;
  }

  /** How many faults of each kind were injected, and how many watches were closed early (since the last set(spec)). */
  counts(): Record<FaultKind | 'watchClosed', number> {
    return { ...this.counted };
  }

  /**
   * The fault for one eligible (non-watch resource) request, or undefined to serve it; counts
   * it. Draws from `random`: whether to fault, which kind, and for a write's drop, whether after
   * applying it (< 0.5) or before.
   */
  decide(write: boolean): FaultDecision | undefined {
    const spec = this.current;
    if (!spec || spec.share <= 0 || (spec.writesOnly && !write)) return undefined;
    const random = spec.random ?? Math.random;
    if (!(random() < spec.share)) return undefined;
    const index = Math.min(spec.kinds.length - 1, Math.floor(random() * spec.kinds.length));
    const kind = spec.kinds[index];
    this.counted[kind]++;
    if (kind !== 'drop') return { kind };
    return { kind, afterApply: write && random() < 0.5 };
  }

  /** How long a watch starting now may run before it is ended (undefined: no early close). */
  watchCloseDelay(): number | undefined {
    const ms = this.current?.watchCloseMs;
    if (ms === undefined) return undefined;
    return Math.floor((this.current!.random ?? Math.random)() * ms);
  }

  /** Counts a watch that was ended early. */
  countWatchClosed(): void {
    this.counted.watchClosed++;
  }
}

/** A resource request as the server sees it after authentication (its body already read). */
export interface FaultCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  target: ResourceRequest;
  body: string;
}

/** The name a message names: the URL's, or a create's body's. */
function nameOf(call: FaultCall): string {
  if (call.target.name) return call.target.name;
  try {
    const body = JSON.parse(call.body) as { metadata?: { name?: unknown } } | null;
    return typeof body?.metadata?.name === 'string' ? body.metadata.name : '';
  } catch {
    return '';
  }
}

/** The Status of a 409, 429 or 500 fault, worded as kube-apiserver words it. */
export function faultStatus(kind: 'conflict' | 'throttle' | 'error', call: FaultCall): StatusError {
  if (kind === 'conflict') {
    const { group, plural } = call.target.def;
    return conflict({ group, resource: plural }, nameOf(call), MODIFIED_CONFLICT);
  }
  if (kind === 'throttle') {
    return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
      retryAfterSeconds: 1,
    });
  }
  return internalError('injected fault');
}

/** Answers nothing: whatever the request handler sends is swallowed and the connection is cut instead. */
function dropResponse(res: ServerResponse): void {
  res.writeHead = (): ServerResponse => res;
  res.write = ((): boolean => true) as typeof res.write;
  res.end = ((): ServerResponse => {
    res.socket?.destroy();
    return res;
  }) as typeof res.end;
}

/** Ends a watch after `ms`, as its timeout would (later events are not written). */
function closeWatchAfter(faults: FaultInjector, res: ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (res.writableEnded || res.destroyed) return;
    faults.countWatchClosed();
    res.write = ((): boolean => true) as typeof res.write;
    res.end();
  }, ms);
  timer.unref();
  res.on('close', () => clearTimeout(timer));
}

/**
 * Applies the faults (when on) to a resource request before it is served: throws the Status of a
 * 409/429/500 fault, cuts the connection of a drop (and returns 'dropped'), or returns 'serve' —
 * with the answer intercepted for a drop after the write, and an early end set up for a watch.
 */
export function injectFault(faults: FaultInjector, call: FaultCall): 'serve' | 'dropped' {
  if (!faults.spec) return 'serve';
  const method = call.req.method ?? 'GET';
  if (method === 'GET' && isWatch(call.url.searchParams, call.target)) {
    const ms = faults.watchCloseDelay();
    if (ms !== undefined) closeWatchAfter(faults, call.res, ms);
    return 'serve';
  }
  const fault = faults.decide(isWriteMethod(method));
  if (!fault) return 'serve';
  if (fault.kind !== 'drop') {
    if (fault.kind === 'throttle') call.res.setHeader('Retry-After', '1');
    throw faultStatus(fault.kind, call);
  }
  if (fault.afterApply) {
    dropResponse(call.res);
    return 'serve';
  }
  call.req.socket.destroy();
  return 'dropped';
}
