/**
 * File primitives: the append-only log (one write + fdatasync per flush; bytes a failed write
 * left unwritten are written first next time), atomic replacement of a file (temp file, fsync,
 * rename, fsync of the directory), and the lock that keeps two processes off one directory.
 */
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes a directory's entries (a created or renamed file) durable; a no-op where unsupported. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw e;
  } finally {
    await fh?.close();
  }
}

/** Replaces `path` with `text` so that a crash leaves either the old or the new file, never a mix. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  await fsyncDir(dirname(path));
}

export class LogFile {
  private pending: Buffer | undefined;

  private constructor(
    private readonly fh: FileHandle,
    /** Bytes in the file (what was written, not necessarily synced). */
    public size: number,
  ) {}

  /** Opens (creating) the log for appending; cuts it to `validLength` bytes when it is longer (a torn tail). */
  static async open(path: string, validLength: number): Promise<LogFile> {
    const fh = await open(path, 'a', 0o600);
    const { size } = await fh.stat();
    if (size > validLength) {
      await fh.truncate(validLength);
      await fh.datasync();
    }
    return new LogFile(fh, Math.min(size, validLength));
  }

  /** Appends `data` (after whatever an earlier failed write left); no fsync. */
  async write(data: Buffer): Promise<void> {
    const all = this.pending ? Buffer.concat([this.pending, data]) : data;
    this.pending = undefined;
    let offset = 0;
    try {
      while (offset < all.length) {
        const { bytesWritten } = await this.fh.write(all, offset, all.length - offset);
        offset += bytesWritten;
        this.size += bytesWritten;
      }
    } catch (e) {
      this.pending = all.subarray(offset);
      throw e;
    }
  }

  async datasync(): Promise<void> {
    await this.fh.datasync();
  }

  /** Empties the log and starts it with `first` (synced). */
  async reset(first: string): Promise<void> {
    this.pending = undefined;
    await this.fh.truncate(0);
    this.size = 0;
    await this.write(Buffer.from(first));
    await this.fh.datasync();
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // a killed process nobody has reaped yet is a zombie: it holds nothing any more
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

const heldHere = new Set<string>();

/** Creates the lock file with this process's pid; false when it exists. */
async function createLock(path: string): Promise<boolean> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(`${process.pid}\n`);
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Takes `path` as a lock file holding this process's pid. A lock left by a process that is gone
 * (kill -9) is taken over; one held by a live process (or by this one) is an error.
 */
export async function acquireLock(path: string, what: string): Promise<() => Promise<void>> {
  if (heldHere.has(path)) throw new Error(`${what} is already open in this process (lock ${path})`);
  if (!(await createLock(path))) {
    const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
      throw new Error(`${what} is in use by process ${pid} (lock ${path})`);
    await rm(path, { force: true });
    if (!(await createLock(path))) throw new Error(`${what}: could not take the lock ${path}`);
  }
  heldHere.add(path);
  return async () => {
    heldHere.delete(path);
    await rm(path, { force: true });
  };
}
