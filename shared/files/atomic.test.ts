import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporaryPath, writeFileAtomic } from './atomic.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Two JSON documents of very different sizes (a torn read of either is no valid JSON). */
const versions = [
  JSON.stringify({ v: 'small', pad: 'x'.repeat(100) }),
  JSON.stringify({ v: 'large', pad: Array.from({ length: 40_000 }, (_, i) => i) }),
];

/**
 * Rewrites `file` with `write` `rounds` times (alternating versions; fewer with `untilTorn`,
 * once a torn read was seen) while reading it in a loop; returns the reads that were neither
 * version whole.
 */
async function readWhileRewritten(
  file: string,
  write: (path: string, text: string) => Promise<void>,
  rounds: number,
  untilTorn = false,
): Promise<{ reads: number; torn: string[] }> {
  await write(file, versions[0]);
  let writing = true;
  const torn: string[] = [];
  let reads = 0;
  const reader = (async () => {
    while (writing) {
      const text = await readFile(file, 'utf8');
      reads++;
      if (!versions.includes(text)) torn.push(text.slice(0, 40));
    }
  })();
  for (let i = 1; i <= rounds && !(untilTorn && torn.length > 0); i++) await write(file, versions[i % 2]);
  writing = false;
  await reader;
  return { reads, torn };
}

describe('writeFileAtomic', () => {
  it('a reader in a loop never sees the file half-written while it is rewritten', async () => {
    const { reads, torn } = await readWhileRewritten(
      join(dir, 'landscape.json'),
      (p, t) => writeFileAtomic(p, t),
      400,
    );
    expect(reads).toBeGreaterThan(0);
    expect(torn).toEqual([]);
    // no temporary file is left behind
    expect(await readdir(dir)).toEqual(['landscape.json']);
  });

  it('(the same reader does see a plain in-place writeFile half-written: the check can fail)', async () => {
    const { torn } = await readWhileRewritten(
      join(dir, 'inplace.json'),
      (p, t) => writeFile(p, t),
      2000,
      true,
    );
    expect(torn.length).toBeGreaterThan(0);
  });

  it('sets the mode (not masked by the umask), replacing the mode of an existing file', async () => {
    const file = join(dir, 'kubeconfig');
    await writeFile(file, 'old', { mode: 0o644 });
    await writeFileAtomic(file, 'secret', { mode: 0o600, durable: true });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toBe('secret');
  });

  it('creates the directory, and leaves nothing behind when the write fails', async () => {
    const file = join(dir, 'a', 'b', 'broker.json');
    await writeFileAtomic(file, '{}');
    expect(await readFile(file, 'utf8')).toBe('{}');
    await expect(writeFileAtomic(join(dir, 'missing', 'x.json'), '{}', { mkdir: false })).rejects.toThrow(
      /ENOENT/,
    );
    await expect(writeFileAtomic(join(dir, 'a'), 'over a directory')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['a']);
    expect(await readdir(join(dir, 'a'))).toEqual(['b']);
  });

  it('uses a unique temporary name in the same directory, ending .tmp', () => {
    const a = temporaryPath('/x/dlq/default.jsonl');
    const b = temporaryPath('/x/dlq/default.jsonl');
    expect(a).toMatch(/^\/x\/dlq\/\.default\.jsonl\.[0-9a-f]{12}\.tmp$/);
    expect(a).not.toBe(b);
  });
});
