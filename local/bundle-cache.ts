/**
 * The bundle cache of ./bundle.ts (`node_modules/.cache/landscape-bundles/<function>-<key>/`): a
 * bundle folder and `cache.json` (its size and every input esbuild read, with size and mtime),
 * taken while every input is unchanged, stored by rename (concurrent builders are safe), and the
 * lock one builder holds while it builds what others wait for.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, cp, link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CacheManifest {
  bytes: number;
  inputs: Record<string, { size: number; mtimeMs: number }>;
}

/** One look at the cache's inputs: the functions' manifests share most of theirs, each is stat-ed once. */
export type InputStats = Map<string, Promise<{ size: number; mtimeMs: number } | undefined>>;

async function inputsUnchanged(inputs: CacheManifest['inputs'], stats: InputStats): Promise<boolean> {
  for (const [path, seen] of Object.entries(inputs)) {
    let pending = stats.get(path);
    if (pending === undefined) {
      pending = stat(path).then(
        (st) => ({ size: st.size, mtimeMs: st.mtimeMs }),
        () => undefined,
      );
      stats.set(path, pending);
    }
    const st = await pending;
    if (!st || st.size !== seen.size || st.mtimeMs !== seen.mtimeMs) return false;
  }
  return true;
}

/**
 * The cached bundle's files into `dir`: hard links where the file system allows (no copy of a
 * function's ~11 MB bundle and map on every start), else copies. A link shares the cache's file,
 * so a build into `dir` removes what is there first (buildTargets), never writing through it.
 */
async function linkInto(from: string, dir: string): Promise<void> {
  for (const e of await readdir(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    const dest = join(dir, e.name);
    if (!e.isFile()) {
      await cp(src, dest, { recursive: true });
      continue;
    }
    await rm(dest, { force: true });
    await link(src, dest).catch(() => copyFile(src, dest));
  }
}

/** The cached bundle linked (or copied) into `dir` when still valid; undefined on a miss. */
export async function fromCache(cached: string, dir: string, stats: InputStats): Promise<number | undefined> {
  const manifest = await readFile(join(cached, 'cache.json'), 'utf8').then(
    (t) => JSON.parse(t) as CacheManifest,
    () => undefined,
  );
  if (!manifest || !(await inputsUnchanged(manifest.inputs, stats))) return undefined;
  await linkInto(join(cached, 'bundle'), dir);
  return manifest.bytes;
}

/** Stores a fresh bundle (written to a temporary folder, then renamed: concurrent builders are safe). */
export async function toCache(cached: string, dir: string, manifest: CacheManifest): Promise<void> {
  const tmp = `${cached}.${randomUUID()}.tmp`;
  await cp(dir, join(tmp, 'bundle'), { recursive: true });
  await writeFile(join(tmp, 'cache.json'), JSON.stringify(manifest));
  await rm(cached, { recursive: true, force: true });
  await rename(tmp, cached).catch(() => rm(tmp, { recursive: true, force: true }));
}

export async function inputStats(paths: readonly string[]): Promise<CacheManifest['inputs']> {
  const out: CacheManifest['inputs'] = {};
  for (const p of paths) {
    const st = await stat(p).catch(() => undefined);
    if (st) out[p] = { size: st.size, mtimeMs: st.mtimeMs };
  }
  return out;
}

/** A lock older than this is taken as left by a builder that died. */
const STALE_LOCK_MS = 120_000;

/**
 * Waits until this process holds the lock directory `lock` (mkdir is atomic), or until a lock
 * held elsewhere is stale; returns its release.
 */
export async function buildLock(
  lock: string,
  progress: (line: string) => void,
): Promise<() => Promise<void>> {
  for (let waited = 0; ; waited++) {
    try {
      await mkdir(lock);
      return () => rm(lock, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await stat(lock).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
      if (waited % 25 === 0) progress(`functions: waiting for another landscape's build (${lock})`);
    }
  }
}
