/**
 * Atomic replacement of a file others read (the landscape's control file, broker.json,
 * kubeconfigs, dead letters): the new content goes to a temporary file in the same directory,
 * which is then renamed over the target. rename(2) within one file system replaces the
 * directory entry in one step, so a reader opens either the old file or the new one, whole,
 * never one being written. The temporary name is unique per write (two writers never share
 * one) and ends in `.tmp`, so a reader listing the directory by extension skips it.
 *
 * Upstream: kubernetes pkg/volume/util/atomic_writer.go (AtomicWriter: a reader of a projected
 * volume never sees a partial update; it writes a new directory and swaps a symlink) and
 * github.com/google/renameio (TempFile in the target's directory + Rename), whose form this is.
 * client-go's clientcmd.WriteToFile writes a kubeconfig in place, which is what this avoids.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644; 0o600 for one holding a secret). */
  mode?: number;
  /** fsync the file before the rename (survives a power loss; default false: atomic for readers only). */
  durable?: boolean;
  /** Create the directory first (default true). */
  mkdir?: boolean;
}

/** The temporary file a write of `path` uses: same directory, `.<name>.<random>.tmp`. */
export function temporaryPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Replaces `path` with `data` so that every reader sees the old content or the new, whole. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const mode = opts.mode ?? 0o644;
  if (opts.mkdir ?? true) await mkdir(dirname(path), { recursive: true });
  const tmp = temporaryPath(path);
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await fh.writeFile(data);
      if (opts.durable) await fh.sync();
    } finally {
      await fh.close();
    }
    await chmod(tmp, mode); // open's mode is masked by the umask
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
