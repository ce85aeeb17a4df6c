/**
 * Persistence unit tests: a real Store writing through attach(), temp directories, the files
 * inspected and damaged by hand (torn last line, corrupt snapshot, missing snapshot), replay of
 * snapshot + log, compaction, the restored store's resumable history, and the flush interval
 * with an injected timer.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store, type StoreEvent } from '../store.js';
import type { KubeObject } from '../../api/types.js';
import { openPersistence, type FlushTimer, type Persistence, type PersistenceOptions } from './index.js';

const CM = '/configmaps';
const CRD = 'apiextensions.k8s.io/customresourcedefinitions';

let dir: string;
const open: Persistence[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'persist-'));
});
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

async function openP(opts: Partial<PersistenceOptions> = {}): Promise<Persistence> {
  const p = await openPersistence({ dir, cluster: 'main', ...opts });
  open.push(p);
  return p;
}

/** Creates or updates a configmap the way Operations does (next rv, then put). */
function write(store: Store, name: string, data: Record<string, string> = {}, resource = CM): KubeObject {
  const prev = store.get(resource, 'default', name);
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'default',
      uid: prev?.metadata.uid ?? randomUUID(),
      resourceVersion: String(store.nextRV()),
    },
    data,
  };
  store.put(resource, obj, prev ? 'MODIFIED' : 'ADDED', prev);
  return obj;
}

function remove(store: Store, name: string, resource = CM): void {
  const prev = store.get(resource, 'default', name)!;
  store.remove(resource, {
    ...prev,
    metadata: { ...prev.metadata, resourceVersion: String(store.nextRV()) },
  });
}

function recordAll(store: Store): StoreEvent[] {
  const events: StoreEvent[] = [];
  store.subscribeAll((e) => events.push(e));
  return events;
}

/** A new store restored from p.state, as the Cluster will build it. */
function restored(p: Persistence, historySize?: number): Store {
  const store = new Store({ historySize });
  if (p.state) store.restore(p.state);
  return store;
}

const names = (store: Store, resource = CM): string[] => store.list(resource).map((o) => o.metadata.name!);
const logPath = (): string => join(dir, 'main', 'wal.log');
const snapshotPath = (): string => join(dir, 'main', 'snapshot.json');
const summary = (events: StoreEvent[]): string[] =>
  events.map(
    (e) => `${e.type} ${e.object.metadata.name} ${e.rv} prev=${e.previous?.metadata.resourceVersion ?? '-'}`,
  );

/** A timer that fires only when told to. */
class ManualTimer implements FlushTimer {
  pending: { fn: () => void; ms: number }[] = [];
  set = (fn: () => void, ms: number): unknown => this.pending.push({ fn, ms }) && this.pending.at(-1);
  clear = (handle: unknown): void => void (this.pending = this.pending.filter((h) => h !== handle));
  fire = (): void => this.pending.splice(0).forEach((h) => h.fn());
}

async function eventually(check: () => Promise<void>, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

describe('openPersistence', () => {
  it('starts without state in an empty directory, and restores objects, rv and history after close', async () => {
    const p = await openP();
    expect(p.state).toBeUndefined();
    expect(p.warnings).toEqual([]);
    const store = new Store();
    const events = recordAll(store);
    p.attach(store);
    const a = write(store, 'a', { x: '1' });
    write(store, 'b');
    write(store, 'a', { x: '2' });
    remove(store, 'b');
    write(store, 'c');
    await p.close();

    const q = await openP();
    expect(q.warnings).toEqual([]);
    expect(q.state!.resourceVersion).toBe(5);
    expect(q.state!.compactedRV).toBe(0);
    expect(summary(q.state!.history)).toEqual(summary(events));
    const again = restored(q);
    expect(again.currentRV).toBe(5);
    expect(names(again)).toEqual(['a', 'c']);
    expect(again.get(CM, 'default', 'a')).toMatchObject({
      metadata: { uid: a.metadata.uid, resourceVersion: '3' },
    });
    expect(again.get(CM, 'default', 'a')!.data).toEqual({ x: '2' });
    expect(again.oldestResumableRV).toBe(0);
    // a watch from rv 2 resumes with the later events; paging at rv 2 sees the old state
    const resumed: StoreEvent[] = [];
    expect(again.subscribe(CM, (e) => resumed.push(e), 2)).toBeDefined();
    expect(summary(resumed)).toEqual(summary(events.slice(2)));
    expect(again.listAt(CM, undefined, 2)!.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    // the restored store goes on at rv 6, and that is logged too
    q.attach(again);
    expect(write(again, 'd').metadata.resourceVersion).toBe('6');
    await q.close();
    const r = await openP();
    expect(r.state!.resourceVersion).toBe(6);
    expect(names(restored(r))).toEqual(['a', 'c', 'd']);
  });

  it('ignores a torn last line with a warning, and cuts it off before appending', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    write(store, 'b');
    await p.close();
    const complete = (await stat(logPath())).size;
    await appendFile(logPath(), '{"rv":3,"type":"ADDED","resource":"/configmaps","object":{"apiVer');

    const q = await openP();
    expect(q.warnings).toHaveLength(1);
    expect(q.warnings[0]).toContain('wal.log');
    expect(q.warnings[0]).toContain('torn last line');
    expect(q.state!.resourceVersion).toBe(2);
    expect((await stat(logPath())).size).toBe(complete);
    const again = restored(q);
    q.attach(again);
    write(again, 'c');
    await q.close();

    const r = await openP();
    expect(r.warnings).toEqual([]);
    expect(names(restored(r))).toEqual(['a', 'b', 'c']);
  });

  it('refuses a log that is corrupt before its last line, naming the file and the line', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    write(store, 'b');
    await p.close();
    const lines = (await readFile(logPath(), 'utf8')).split('\n');
    lines[1] = lines[1].slice(0, 20);
    await writeFile(logPath(), lines.join('\n'));
    await expect(openP()).rejects.toThrow(/log .*wal\.log is corrupt at line 2: not JSON/);
    // the failed open released the lock
    await rm(logPath());
    await expect(openP()).resolves.toBeDefined();
  });

  it('refuses a corrupt snapshot with its path and the problem, never starting empty', async () => {
    const p = await openP({ compactBytes: 1 });
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    await p.flush();
    await p.close();
    const good = await readFile(snapshotPath(), 'utf8');
    const cases: [string, RegExp][] = [
      [good.slice(0, good.length / 2), /snapshot .*snapshot\.json is corrupt: not valid JSON/],
      ['', /snapshot .*snapshot\.json is corrupt: the file is empty/],
      [good.replace('"format":"landscape-apiserver-snapshot/v1"', '"format":"x"'), /"format" is "x"/],
      [good.replace('"resourceVersion":1', '"resourceVersion":"1"'), /"resourceVersion" is not/],
      [good.replace('"history":[{"rv":1', '"history":[{"rv":7'), /history\[0\]: rv 7 is not in \(0, 1\]/],
      [
        good.replace('"name":"a"', '"nome":"a"'),
        /resources\["\/configmaps"\]\[0\]: the object has no metadata.name/,
      ],
    ];
    for (const [text, error] of cases) {
      await writeFile(snapshotPath(), text);
      await expect(openP()).rejects.toThrow(error);
    }
  });

  it('refuses a log that continues a snapshot that is missing', async () => {
    const p = await openP({ compactBytes: 1 });
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    await p.flush(); // compacts: the log now starts with {"wal":1,"after":1}
    expect(await readFile(logPath(), 'utf8')).toBe('{"wal":1,"after":1}\n');
    await p.flush(); // nothing new: no compaction
    expect(JSON.parse(await readFile(snapshotPath(), 'utf8')).resourceVersion).toBe(1);
    write(store, 'b');
    await p.close(); // a large log is compacted on close too
    expect(await readFile(logPath(), 'utf8')).toBe('{"wal":1,"after":2}\n');
    await rm(snapshotPath());
    await expect(openP()).rejects.toThrow(
      /continues the snapshot taken at resourceVersion 2, but snapshot.json is missing/,
    );
  });

  it('compacts into a snapshot when the log passes compactBytes, and loads snapshot + log', async () => {
    const p = await openP({ compactBytes: 600, historyTail: 3 });
    const store = new Store();
    const events = recordAll(store);
    p.attach(store);
    for (let i = 0; i < 6; i++) write(store, `o${i}`, { i: String(i) });
    write(store, 'o0', { i: 'changed' });
    remove(store, 'o1');
    await p.flush();
    // compacted at rv 8: the snapshot has every object and the last 3 events; the log its header
    const snapshot = JSON.parse(await readFile(snapshotPath(), 'utf8'));
    expect(snapshot).toMatchObject({ resourceVersion: 8, compactedRV: 5, cluster: 'main' });
    expect(snapshot.history.map((e: StoreEvent) => e.rv)).toEqual([6, 7, 8]);
    // the MODIFIED of o0 (rv 7) and the DELETED of o1 (rv 8) carry previous: their tail has no earlier event
    expect(snapshot.history[1].previous.metadata.resourceVersion).toBe('1');
    expect(await readFile(logPath(), 'utf8')).toBe('{"wal":1,"after":8}\n');
    write(store, 'o2', { i: 'again' });
    write(store, 'o6');
    await p.close();
    expect((await readFile(logPath(), 'utf8')).split('\n')).toHaveLength(4);

    const q = await openP({ compactBytes: 600, historyTail: 3 });
    expect(q.state!.resourceVersion).toBe(10);
    expect(q.state!.compactedRV).toBe(5);
    expect(summary(q.state!.history)).toEqual(summary(events.slice(5)));
    const again = restored(q);
    expect(names(again)).toEqual(['o0', 'o2', 'o3', 'o4', 'o5', 'o6']);
    expect(again.get(CM, 'default', 'o2')!.data).toEqual({ i: 'again' });
    expect(again.oldestResumableRV).toBe(5);
    expect(again.subscribe(CM, () => undefined, 4)).toBeUndefined();
    const resumed: StoreEvent[] = [];
    again.subscribe(CM, (e) => resumed.push(e), 5);
    expect(resumed.map((e) => e.rv)).toEqual([6, 7, 8, 9, 10]);
    expect(again.listAt(CM, undefined, 6)!.map((o) => o.metadata.name)).toEqual([
      'o0',
      'o1',
      'o2',
      'o3',
      'o4',
      'o5',
    ]);
  });

  it('skips log events the snapshot already holds (stopped between snapshot and emptying the log)', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    write(store, 'b');
    await p.flush();
    const log = await readFile(logPath(), 'utf8');
    await p.compact();
    write(store, 'c');
    await p.close();
    const tail = (await readFile(logPath(), 'utf8')).split('\n').slice(1).join('\n');
    await writeFile(logPath(), log + tail); // as if the log had not been emptied
    const q = await openP();
    expect(q.warnings).toEqual([]);
    expect(q.state!.resourceVersion).toBe(3);
    expect(names(restored(q))).toEqual(['a', 'b', 'c']);
  });

  it('restores a CRD and drops its resource when the CRD was deleted', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    const crd = (rv: number): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', resourceVersion: String(rv) },
      spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' } },
    });
    store.put(CRD, crd(store.nextRV()), 'ADDED');
    write(store, 'w', {}, 'example.com/widgets');
    await p.flush();
    const q1 = await readFile(logPath(), 'utf8');
    store.remove(CRD, crd(store.nextRV()));
    store.dropResource('example.com/widgets');
    await p.close();
    expect(q1.split('\n')).toHaveLength(4);
    const q = await openP();
    expect(q.state!.objects.has('example.com/widgets')).toBe(false);
    expect(q.state!.objects.has(CRD)).toBe(false);
    expect(q.state!.resourceVersion).toBe(3);
  });

  it('writes only when the flush timer fires (or on flush/close), one timer at a time', async () => {
    const timer = new ManualTimer();
    const p = await openP({ timer, flushIntervalMs: 1000 });
    const store = new Store();
    p.attach(store);
    const empty = (await stat(logPath())).size;
    write(store, 'a');
    write(store, 'b');
    expect(timer.pending.map((t) => t.ms)).toEqual([1000]);
    expect((await stat(logPath())).size).toBe(empty);
    timer.fire();
    await eventually(async () => expect((await readFile(logPath(), 'utf8')).split('\n')).toHaveLength(4));
    expect(timer.pending).toHaveLength(0);
    write(store, 'c');
    expect(timer.pending).toHaveLength(1);
    await p.close();
    expect(timer.pending).toHaveLength(0);
    expect((await readFile(logPath(), 'utf8')).split('\n')).toHaveLength(5);
    expect(() => write(store, 'd')).not.toThrow(); // detached: the store goes on, unrecorded
    expect(() =>
      p.append({ rv: 9, type: 'ADDED', resource: CM, object: store.get(CM, 'default', 'd')! }),
    ).toThrow(/closed/);
  });

  it('flushes within the interval on its own with the real timer', async () => {
    const p = await openP({ flushIntervalMs: 30 });
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    await eventually(async () => expect(await readFile(logPath(), 'utf8')).toContain('"name":"a"'), 1000);
  });

  it('refuses to attach to a store that was not restored, and a second open of the same directory', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    write(store, 'a');
    await p.close();
    const q = await openP();
    expect(() => q.attach(new Store())).toThrow(/restore the store from state first/);
    await expect(openPersistence({ dir, cluster: 'main' })).rejects.toThrow(/already open in this process/);
    // another cluster is another directory
    await expect(openP({ cluster: 'shoot' })).resolves.toMatchObject({ state: undefined });
  });

  it('takes over the lock of a process that is gone (kill -9)', async () => {
    await openP().then((p) => p.close());
    await writeFile(join(dir, 'main', 'lock'), '99999999\n');
    const p = await openP();
    expect(await readFile(join(dir, 'main', 'lock'), 'utf8')).toBe(`${process.pid}\n`);
    await p.close();
    await expect(stat(join(dir, 'main', 'lock'))).rejects.toThrow(/ENOENT/);
  });

  it('keeps historySize events when restoring, so older resourceVersions get 410', async () => {
    const p = await openP();
    const store = new Store();
    p.attach(store);
    for (let i = 0; i < 10; i++) write(store, `o${i}`);
    await p.close();
    const q = await openP();
    const small = restored(q, 4);
    expect(small.oldestResumableRV).toBe(6);
    expect(small.subscribe(CM, () => undefined, 5)).toBeUndefined();
    expect(small.subscribe(CM, () => undefined, 6)).toBeDefined();
    expect(() => small.restore(q.state!)).toThrow(/must be new/);
  });
});
