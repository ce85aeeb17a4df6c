/**
 * An off-by-default request audit log, as kube-apiserver writes with `--audit-log-path` and a
 * policy of level `Metadata` (k8s.io/apiserver pkg/apis/audit/v1 types.go `Event`; backend
 * pkg/audit/... log backend: one JSON event per line): one `audit.k8s.io/v1` Event per request at
 * stage `ResponseComplete` with the verb, the user, the object reference (resource, subresource,
 * namespace, name, apiGroup/apiVersion) and the response code. Bodies are not logged (that would
 * be level Request/RequestResponse). The cluster's name is the annotation `landscape.dev/cluster`.
 *
 * Where it differs: no policy file (every request is logged, watches when they end); no
 * ResponseStarted stage; `sourceIPs` is the socket's address only.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestInfo } from '../auth/rbac/request-info.js';

export interface AuditObjectRef {
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
}

/** The fields of audit.k8s.io/v1 Event a Metadata-level log carries. */
export interface RequestAuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: { username: string; groups?: string[] };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations: Record<string, string>;
}

const users = new WeakMap<IncomingMessage, { username: string; groups: string[] }>();

/** Called by the server once it knows who sends `req`. */
export function noteRequestUser(req: IncomingMessage, user: { username: string; groups: string[] }): void {
  users.set(req, user);
}

/**
 * The verb and object reference of a request, from its RequestInfo as upstream's audit takes them
 * (k8s.io/apiserver/pkg/audit/request.go NewEventFromRequest: `attribs.GetVerb()`, ObjectRef from
 * the RequestInfo); a non-resource request has the lowercased method and no reference.
 */
export function requestAttributes(method: string, url: URL): { verb: string; objectRef?: AuditObjectRef } {
  const info = requestInfo(method, url);
  if (!info.isResourceRequest || !info.resource) return { verb: method.toLowerCase() };
  const objectRef: AuditObjectRef = { resource: info.resource };
  if (info.subresource) objectRef.subresource = info.subresource;
  if (info.namespace) objectRef.namespace = info.namespace;
  if (info.name) objectRef.name = info.name;
  if (info.apiGroup) objectRef.apiGroup = info.apiGroup;
  objectRef.apiVersion = info.apiVersion;
  return { verb: info.verb, objectRef };
}

/** Appends the audit events of one or more clusters' requests to a file (JSON lines). */
export class RequestAuditLog {
  private readonly out: WriteStream;

  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.out = createWriteStream(file, { flags: 'a' });
  }

  /** A `request` listener for the server of cluster `cluster` (registered before its own). */
  listener(cluster: string): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const received = this.now().toISOString();
      res.once('close', () => this.write(cluster, req, res, received));
    };
  }

  private write(cluster: string, req: IncomingMessage, res: ServerResponse, received: string): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { verb, objectRef } = requestAttributes(req.method ?? 'GET', url);
    const event: RequestAuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: randomUUID(),
      stage: 'ResponseComplete',
      requestURI: req.url ?? '/',
      verb,
      user: users.get(req) ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      sourceIPs: [req.socket.remoteAddress ?? ''],
      responseStatus: { metadata: {}, code: res.statusCode },
      requestReceivedTimestamp: received,
      stageTimestamp: this.now().toISOString(),
      annotations: { 'landscape.dev/cluster': cluster },
    };
    if (req.headers['user-agent']) event.userAgent = req.headers['user-agent'];
    if (objectRef) event.objectRef = objectRef;
    this.out.write(`${JSON.stringify(event)}\n`);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}
