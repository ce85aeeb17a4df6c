/**
 * What every handler of one cluster's HTTP face shares: the server context (token, registry,
 * store, verbs), one resource request (`RestCall`), and the answers (`send`, `sendError`, JSON
 * bodies). Its own module so the router (./server.ts), the REST verbs (./rest.ts) and the watch
 * verb (./rest-watch.ts) import it without importing each other in a circle.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { badRequest, internalError, StatusError } from '../api/errors.js';
import { parseJson } from './decode.js';
import type { OpenApiCache } from './openapi.js';
import type { Operations, Scope } from '../registry/operations.js';
import type { Registry } from '../registry/kinds.js';
import type { ResourceRequest } from './request.js';
import type { Store } from '../storage/store.js';
import type { TokenKey } from '../auth/rbac/index.js';
import type { FaultInjector } from '../testing/faults.js';
import type { RequestMetrics } from './metrics.js';

export interface ServerContext {
  token: string;
  /** Signs and checks ServiceAccount tokens. */
  tokenKey: TokenKey;
  /** Enforce RBAC on every request (the admin token is system:masters). */
  rbac: boolean;
  registry: Registry;
  store: Store;
  ops: Operations;
  openapi: OpenApiCache;
  serverAddress: () => string;
  /** Test-only fault injection (off unless its spec is set). */
  faults?: FaultInjector;
  /** What `/metrics` serves (./metrics.ts). */
  metrics?: RequestMetrics;
}

export interface RestCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  target: ResourceRequest;
  body: string;
}

export function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Audit-Id': randomUUID(), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const status = err instanceof StatusError ? err : internalError((err as Error)?.message ?? String(err));
  if (res.headersSent) {
    res.end();
    return;
  }
  send(res, status.code, status.toStatus());
}

/** Parses a JSON body, with the kind named in the error when it is malformed. */
export function jsonBody(body: string, scope?: Scope): unknown {
  if (!body.trim()) throw badRequest('the body of the request is empty');
  return parseJson(body, scope?.def);
}
