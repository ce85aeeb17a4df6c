/**
 * The on-disk formats of one cluster's data directory:
 *
 * - `wal.log`: JSON lines. An optional first line `{"wal":1,"after":S}` says the log continues
 *   the snapshot taken at resourceVersion S; every other line is one store event
 *   `{"rv":N,"type":"ADDED"|"MODIFIED"|"DELETED","resource":"apps/deployments","object":{...}}`
 *   (a DELETED event's object is the object's last state, carrying the deletion's rv). The
 *   `previous` of an event is not written: a replay knows it (the object the event replaces).
 * - `snapshot.json`: every object at resourceVersion `resourceVersion`, plus the events with
 *   resourceVersions in (`compactedRV`, `resourceVersion`] (the history tail), oldest first.
 *   A tail event carries `previous` only when it is not the object of the tail's earlier event
 *   for the same key (so mostly only the first event of a key does).
 */
import { WATCH_EVENT_TYPES, type StoreEvent, type WatchEventType } from '../store.js';
import type { KubeObject } from '../../api/types.js';
import { eventKey } from './state.js';
import { isRecord } from '@landscape/apimachinery';

export const LOG_FILE = 'wal.log';
export const SNAPSHOT_FILE = 'snapshot.json';
export const SNAPSHOT_FORMAT = 'landscape-apiserver-snapshot/v1';
export const LOG_VERSION = 1;

export type LogRecord = { kind: 'header'; after: number } | { kind: 'event'; event: StoreEvent };

export interface Snapshot {
  cluster: string;
  resourceVersion: number;
  compactedRV: number;
  objects: Map<string, KubeObject[]>;
  /** Every event after compactedRV up to resourceVersion, `previous` filled in. */
  history: StoreEvent[];
}

export function encodeHeader(after: number): string {
  return `{"wal":${LOG_VERSION},"after":${after}}\n`;
}

export function encodeEvent(e: StoreEvent): string {
  return `{"rv":${e.rv},"type":"${e.type}","resource":${JSON.stringify(e.resource)},"object":${JSON.stringify(e.object)}}\n`;
}

const isRV = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Why `v` is not a stored object, or undefined when it is one. */
function objectProblem(v: unknown): string | undefined {
  if (!isRecord(v)) return 'the object is not a JSON object';
  const meta = v.metadata;
  if (!isRecord(meta) || typeof meta.name !== 'string' || !meta.name)
    return 'the object has no metadata.name';
  return undefined;
}

/** Why `v` is not a persisted event, or undefined when it is one. */
function eventProblem(v: Record<string, unknown>): string | undefined {
  if (!isRV(v.rv) || v.rv === 0) return 'rv is not a positive integer';
  if (!WATCH_EVENT_TYPES.includes(v.type as WatchEventType))
    return `unknown event type ${JSON.stringify(v.type)}`;
  if (typeof v.resource !== 'string') return 'resource is not a string';
  const problem = objectProblem(v.object);
  if (problem) return problem;
  if (v.previous !== undefined) return objectProblem(v.previous);
  return undefined;
}

/** Parses one complete line of the log; throws an Error saying what is wrong with it. */
export function parseLogLine(line: string): LogRecord {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`, { cause: e });
  }
  if (!isRecord(v)) throw new Error('not a JSON object');
  if ('wal' in v) {
    if (v.wal !== LOG_VERSION) throw new Error(`unsupported log version ${JSON.stringify(v.wal)}`);
    if (!isRV(v.after)) throw new Error('header "after" is not a resourceVersion');
    return { kind: 'header', after: v.after };
  }
  const problem = eventProblem(v);
  if (problem) throw new Error(problem);
  return { kind: 'event', event: v as unknown as StoreEvent };
}

/** The snapshot file's text (one JSON document). */
export function encodeSnapshot(s: Snapshot, savedAt: Date): string {
  const resources: Record<string, KubeObject[]> = {};
  for (const [resource, objects] of s.objects) resources[resource] = objects;
  const last = new Map<string, KubeObject | undefined>();
  const history = s.history.map((e) => {
    const key = `${e.resource}|${eventKey(e)}`;
    const known = last.get(key);
    last.set(key, e.type === 'DELETED' ? undefined : e.object);
    const out: Record<string, unknown> = { rv: e.rv, type: e.type, resource: e.resource, object: e.object };
    if (e.type !== 'ADDED' && e.previous && e.previous !== known) out.previous = e.previous;
    return out;
  });
  return JSON.stringify({
    format: SNAPSHOT_FORMAT,
    cluster: s.cluster,
    resourceVersion: s.resourceVersion,
    compactedRV: s.compactedRV,
    savedAt: savedAt.toISOString(),
    resources,
    history,
  });
}

function decodeObjects(resources: unknown): Map<string, KubeObject[]> {
  if (!isRecord(resources)) throw new Error('"resources" is not an object of resource → objects');
  const out = new Map<string, KubeObject[]>();
  for (const [resource, objects] of Object.entries(resources)) {
    if (!Array.isArray(objects)) throw new Error(`resources["${resource}"] is not an array`);
    objects.forEach((o, i) => {
      const problem = objectProblem(o);
      if (problem) throw new Error(`resources["${resource}"][${i}]: ${problem}`);
    });
    out.set(resource, objects as KubeObject[]);
  }
  return out;
}

function decodeHistory(history: unknown, compactedRV: number, resourceVersion: number): StoreEvent[] {
  if (!Array.isArray(history)) throw new Error('"history" is not an array');
  const last = new Map<string, KubeObject | undefined>();
  let rv = compactedRV;
  return history.map((v: unknown, i) => {
    const problem = isRecord(v) ? eventProblem(v) : 'not a JSON object';
    if (problem) throw new Error(`history[${i}]: ${problem}`);
    const e = v as StoreEvent;
    if (e.rv <= rv || e.rv > resourceVersion)
      throw new Error(`history[${i}]: rv ${e.rv} is not in (${rv}, ${resourceVersion}]`);
    rv = e.rv;
    const key = `${e.resource}|${eventKey(e)}`;
    if (e.type !== 'ADDED' && !e.previous) e.previous = last.get(key);
    last.set(key, e.type === 'DELETED' ? undefined : e.object);
    return e;
  });
}

/** Decodes and checks a snapshot; throws an Error saying what is wrong (the caller names the file). */
export function decodeSnapshot(text: string): Snapshot {
  if (!text.trim()) throw new Error('the file is empty');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON (${(e as Error).message})`, { cause: e });
  }
  if (!isRecord(v)) throw new Error('not a JSON object');
  if (v.format !== SNAPSHOT_FORMAT)
    throw new Error(`"format" is ${JSON.stringify(v.format)}, expected "${SNAPSHOT_FORMAT}"`);
  if (!isRV(v.resourceVersion)) throw new Error('"resourceVersion" is not a non-negative integer');
  if (!isRV(v.compactedRV) || v.compactedRV > v.resourceVersion)
    throw new Error('"compactedRV" is not an integer between 0 and "resourceVersion"');
  return {
    cluster: typeof v.cluster === 'string' ? v.cluster : '',
    resourceVersion: v.resourceVersion,
    compactedRV: v.compactedRV,
    objects: decodeObjects(v.resources),
    history: decodeHistory(v.history, v.compactedRV, v.resourceVersion),
  };
}
