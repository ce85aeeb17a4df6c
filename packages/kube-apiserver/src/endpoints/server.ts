/**
 * The HTTP face of one cluster: bearer-token authentication, discovery, OpenAPI, and the REST
 * and watch verbs over the resources of its registry.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, resourceNotFound, unauthorized } from '../api/errors.js';
import { apiGroupDoc, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.js';
import { openApiV2 } from './openapi.js';
import { parseApiPath, resolveResource, readBody } from './request.js';
import { handleResource } from './rest.js';
import { send, sendError, type ServerContext } from './context.js';
import { authenticateBearer, authorizeRequest, storeLookup, type UserInfo } from '../auth/rbac/index.js';
import { ACCESS_REVIEW_PATH, accessReview, sendReview } from '../auth/reviews.js';
import { impersonate } from '../auth/impersonation.js';
import { RULES_REVIEW_PATH, rulesReview } from '../auth/rules-review.js';
import { runAsUser } from '../audit/audit.js';
import { noteRequestUser } from '../audit/request-audit.js';
import { injectFault } from '../testing/faults.js';
import type { KubeObject } from '../api/types.js';

const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz'] as const;

/**
 * Who sends the request: the cluster's admin token (system:masters) or a ServiceAccount token,
 * or whom it impersonates (../auth/impersonation.ts); with RBAC on, what they may do is then
 * checked (403 with the real message).
 */
function authenticate(ctx: ServerContext, req: IncomingMessage, url: URL): UserInfo {
  const user = authenticateBearer(req.headers.authorization, {
    adminToken: ctx.token,
    key: ctx.tokenKey,
    lookup: storeLookup(ctx.store),
  });
  if (!user) throw unauthorized();
  const effective = impersonate(req, user, ctx.store, ctx.rbac);
  if (ctx.rbac) authorizeRequest(ctx.store, effective, req.method ?? 'GET', url);
  return effective;
}

function discovery(ctx: ServerContext, path: ReturnType<typeof parseApiPath>): unknown {
  if (!path) return undefined;
  if ('discovery' in path) {
    if (path.discovery === 'api') return apiVersions(ctx.serverAddress());
    if (path.discovery === 'apis') return apiGroupList(ctx.registry);
    return apiGroupDoc(ctx.registry, path.group!);
  }
  if (path.rest.length === 0) return apiResourceList(ctx.registry, path.group, path.version);
  return undefined;
}

function openapi(ctx: ServerContext, pathname: string): string | undefined {
  if (pathname === '/openapi/v3' || pathname === '/openapi/v3/') return JSON.stringify(ctx.openapi.index());
  const m = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(pathname);
  if (!m) return undefined;
  return m[1] ? ctx.openapi.document('', m[1]) : ctx.openapi.document(m[2], m[3]);
}

/** Answers the non-resource paths (version, metrics, OpenAPI); false when the path is not one. */
function nonResource(ctx: ServerContext, pathname: string, res: ServerResponse): boolean {
  if (pathname === '/version') send(res, 200, versionInfo());
  else if (pathname === '/metrics' && ctx.metrics) {
    const stored = ctx.store.resources().map((key): [string, number] => [key, ctx.store.count(key)]);
    send(res, 200, ctx.metrics.render(stored), {
      'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
    });
  } else if (pathname === '/openapi/v2') {
    const doc = openApiV2((res.req.headers.accept ?? '').includes('protobuf'));
    res.writeHead(200, { 'Content-Type': doc.contentType });
    res.end(doc.body);
  } else if (pathname.startsWith('/openapi/')) {
    const doc = openapi(ctx, pathname);
    if (!doc) throw resourceNotFound();
    send(res, 200, doc);
  } else return false;
  return true;
}

function sendDiscovery(req: IncomingMessage, res: ServerResponse, doc: unknown): void {
  if (req.method !== 'GET') throw methodNotAllowed();
  send(res, 200, doc);
}

async function route(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if ((PUBLIC_PATHS as readonly string[]).includes(url.pathname))
    return send(res, 200, 'ok', { 'Content-Type': 'text/plain' });
  const user = authenticate(ctx, req, url);
  noteRequestUser(req, user);
  // store changes made while serving (also after awaits) carry the user (the audit log)
  return runAsUser(user.username, () => serve(ctx, req, res, url, user));
}

/** The self-subject reviews, answered for the requesting (or impersonated) user. */
const REVIEWS: Record<
  string,
  (ctx: ServerContext, req: IncomingMessage, user: UserInfo) => Promise<KubeObject>
> = {
  [ACCESS_REVIEW_PATH]: accessReview,
  [RULES_REVIEW_PATH]: rulesReview,
};

/** An authenticated request. */
async function serve(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  user: UserInfo,
): Promise<void> {
  const { pathname } = url;
  const review = REVIEWS[pathname];
  if (review) return sendReview(res, await review(ctx, req, user));
  if (nonResource(ctx, pathname, res)) return;
  const path = parseApiPath(pathname);
  if (!path) throw resourceNotFound();
  const doc = discovery(ctx, path);
  if (doc) return sendDiscovery(req, res, doc);
  if ('discovery' in path) throw resourceNotFound();
  const target = resolveResource(ctx.registry, path);
  const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method ?? '') ? await readBody(req) : '';
  const call = { req, res, url, target, body };
  if (ctx.faults && injectFault(ctx.faults, call) === 'dropped') return;
  await handleResource(ctx, call);
}

/** The request listener of one cluster's HTTP server. */
export function requestHandler(ctx: ServerContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const metrics = ctx.metrics;
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch (err) {
      return sendError(res, err);
    }
    // 'finish' comes once per response: `on` spares the once-wrapper
    if (metrics) res.on('finish', () => metrics.observe(req, url, res.statusCode));
    route(ctx, req, res, url).catch((err: unknown) => sendError(res, err));
  };
}
