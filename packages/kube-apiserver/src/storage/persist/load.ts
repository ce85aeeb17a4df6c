/**
 * Loading a cluster's data directory: the snapshot (if any), then a replay of the log's events
 * after it. A torn last line (a flush cut short by kill -9 or a power loss) is ignored with a
 * warning and cut off the file; anything else that is wrong is an error naming the file and
 * the problem, never a silent start with an empty store.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreEvent } from '../store.js';
import { decodeSnapshot, LOG_FILE, parseLogLine, SNAPSHOT_FILE, type Snapshot } from './format.js';
import { eventKey, MirrorState } from './state.js';

export interface Loaded {
  /** undefined when the directory held no data (a first start). */
  snapshot: Snapshot | undefined;
  mirror: MirrorState;
  /** Snapshot tail + every replayed log event, oldest first. */
  history: StoreEvent[];
  compactedRV: number;
  resourceVersion: number;
  /** Whether there was anything (snapshot or at least one event). */
  found: boolean;
  /** Length of the log's complete lines; the file is cut to it before appending. */
  logLength: number;
  /** Whether the log lacks its header line (new or empty file). */
  logEmpty: boolean;
  warnings: string[];
  /** MODIFIED/DELETED events of objects the replay did not have (reported once). */
  unmatched: number;
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function loadSnapshot(path: string, warnings: string[]): Promise<Snapshot | undefined> {
  if (await readOptional(`${path}.tmp`)) {
    await rm(`${path}.tmp`, { force: true });
    warnings.push(`${path}.tmp: removed an unfinished snapshot (the process stopped during a compaction)`);
  }
  const buf = await readOptional(path);
  if (!buf) return undefined;
  try {
    return decodeSnapshot(buf.toString('utf8'));
  } catch (e) {
    throw new Error(
      `snapshot ${path} is corrupt: ${(e as Error).message}. Refusing to start without the data it holds: ` +
        'restore the file from a backup, or move the data directory away to start empty.',
      { cause: e },
    );
  }
}

function corruptLog(path: string, line: number, why: string): Error {
  return new Error(
    `log ${path} is corrupt at line ${line}: ${why}. Only the last line can be cut short by a crash; ` +
      'refusing to start without the data after it (move the data directory away to start empty).',
  );
}

/** Replays the complete lines of the log into `out`. */
function replay(path: string, text: string, out: Loaded): void {
  const snapshotRV = out.snapshot?.resourceVersion ?? 0;
  let lineNo = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    start = end + 1;
    lineNo++;
    if (!line.trim()) continue;
    let record;
    try {
      record = parseLogLine(line);
    } catch (e) {
      throw corruptLog(path, lineNo, (e as Error).message);
    }
    if (record.kind === 'header') checkHeader(path, lineNo, record.after, out.snapshot);
    else applyLogEvent(path, lineNo, record.event, snapshotRV, out);
  }
}

/** The log must continue the snapshot there is (a missing or older snapshot means lost data). */
function checkHeader(path: string, lineNo: number, after: number, snapshot: Snapshot | undefined): void {
  if (lineNo !== 1) throw corruptLog(path, lineNo, 'a header line after the first line');
  const snapshotRV = snapshot?.resourceVersion ?? 0;
  if (after <= snapshotRV) return;
  throw new Error(
    `log ${path} continues the snapshot taken at resourceVersion ${after}, but ` +
      (snapshot ? `${SNAPSHOT_FILE} is at resourceVersion ${snapshotRV}` : `${SNAPSHOT_FILE} is missing`) +
      '. Refusing to start with part of the data: restore the snapshot, or move the data directory away.',
  );
}

function applyLogEvent(path: string, lineNo: number, e: StoreEvent, snapshotRV: number, out: Loaded): void {
  // events the snapshot already holds (a crash between writing it and emptying the log)
  if (e.rv <= snapshotRV) return;
  if (e.rv <= out.resourceVersion)
    throw corruptLog(
      path,
      lineNo,
      `rv ${e.rv} after rv ${out.resourceVersion} (resourceVersions must increase)`,
    );
  const previous = out.mirror.apply(e);
  if (e.type !== 'ADDED') {
    e.previous = previous;
    if (!previous && !out.unmatched++)
      out.warnings.push(
        `${path}: line ${lineNo}: ${e.type} of ${e.resource} ${eventKey(e)}, which the replay did not have ` +
          '(applied anyway; later ones are not reported)',
      );
  }
  out.history.push(e);
  out.resourceVersion = e.rv;
  out.found = true;
}

/** What the snapshot alone gives (or an empty start without one). */
function fromSnapshot(snapshot: Snapshot | undefined, warnings: string[]): Loaded {
  const mirror = new MirrorState();
  const out: Loaded = {
    snapshot,
    mirror,
    history: [],
    compactedRV: 0,
    resourceVersion: 0,
    found: false,
    logLength: 0,
    logEmpty: true,
    warnings,
    unmatched: 0,
  };
  if (!snapshot) return out;
  for (const [resource, objects] of snapshot.objects) for (const o of objects) mirror.set(resource, o);
  return {
    ...out,
    history: [...snapshot.history],
    compactedRV: snapshot.compactedRV,
    resourceVersion: snapshot.resourceVersion,
    found: true,
  };
}

/** Reads `<clusterDir>/snapshot.json` and `<clusterDir>/wal.log`. */
export async function loadClusterDir(clusterDir: string): Promise<Loaded> {
  const warnings: string[] = [];
  const out = fromSnapshot(await loadSnapshot(join(clusterDir, SNAPSHOT_FILE), warnings), warnings);
  const logPath = join(clusterDir, LOG_FILE);
  const buf = (await readOptional(logPath)) ?? Buffer.alloc(0);
  out.logLength = buf.lastIndexOf(0x0a) + 1;
  if (out.logLength < buf.length) {
    const torn = buf.length - out.logLength;
    warnings.push(
      `${logPath}: ignored a torn last line (${torn} bytes at offset ${out.logLength} without a newline: ` +
        'a write cut short by a crash); the writes in it are lost',
    );
  }
  out.logEmpty = out.logLength === 0;
  replay(logPath, buf.subarray(0, out.logLength).toString('utf8'), out);
  return out;
}
