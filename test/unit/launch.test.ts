/**
 * `scripts/launch.mjs` (how `npm start` and the other entry points run): the bundled entry sees
 * what it would see unbundled — each file's own `import.meta.url`, `process.argv[1]` as the entry
 * and its arguments — and the bundle is reused until a source changes.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, run } from '../e2e/support.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'launch-'));
  await writeFile(join(dir, 'helper.ts'), `export const helperUrl: string = import.meta.url;\n`);
  await writeFile(
    join(dir, 'entry.ts'),
    [
      `import { helperUrl } from './helper.js';`,
      `const note: string = 'import.meta.url in a string stays text';`,
      `console.log(JSON.stringify({ entry: import.meta.url, helperUrl, argv: process.argv.slice(1), note }));`,
    ].join('\n'),
  );
});

afterAll(() => rm(dir, { recursive: true, force: true }));

async function launch(
  ...args: string[]
): Promise<{ entry: string; helperUrl: string; argv: string[]; note: string }> {
  const r = await run(process.execPath, ['scripts/launch.mjs', join(dir, 'entry.ts'), ...args], {
    cwd: REPO_ROOT,
  });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

it('gives every file its own import.meta.url, the entry as argv[1] and the arguments', async () => {
  const out = await launch('--flag', 'value');
  expect(out.entry).toBe(pathToFileURL(join(dir, 'entry.ts')).href);
  expect(out.helperUrl).toBe(pathToFileURL(join(dir, 'helper.ts')).href);
  expect(out.argv).toEqual([join(dir, 'entry.ts'), '--flag', 'value']);
  expect(out.note).toBe('import.meta.url in a string stays text');
});

it('rebuilds when a source changes, and runs the new code', async () => {
  await launch();
  await writeFile(join(dir, 'helper.ts'), `export const helperUrl: string = 'changed';\n`);
  // a write in the same millisecond as the first could keep the mtime: move it on explicitly
  const later = new Date(Date.now() + 5_000);
  await utimes(join(dir, 'helper.ts'), later, later);
  expect((await launch()).helperUrl).toBe('changed');
});

it('refuses what is not a TypeScript entry with its usage', async () => {
  const r = await run(process.execPath, ['scripts/launch.mjs', 'package.json'], { cwd: REPO_ROOT });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('usage: node scripts/launch.mjs <entry.ts> [args...]');
});
