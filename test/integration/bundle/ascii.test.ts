/**
 * ASCII-only server bundles (local/bundle-ascii.ts) and the preload's Latin-1 read of them
 * (shared/serve/preload.ts): the replacement keeps every UTF-16 column; a built bundle and its
 * preload are ASCII-only; a bundle that is not (hand-made here) is still read as UTF-8, one that is
 * runs the same.
 */
import { spawnSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { asciiOnly, isAsciiText, makeAscii } from '../../../local/bundle-ascii.js';
import { bundleFunction } from '../../../local/bundle.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-ascii-'));
  const b = await bundleFunction({
    name: 'sleeper',
    functionsDir: 'test/integration/activator/functions',
    outDir: dir,
    kind: 'server',
  });
  file = b.file;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('asciiOnly', () => {
  it.each([
    ['plain', 'a = 1; // ok', 'a = 1; // ok'],
    ['Latin-1 and BMP', '// ±0 — “x”', '// ?0 ? ?x?'],
    ['outside the BMP (two code units)', '// 🚀 go', '// ?? go'],
  ])('%s', (_name, text, expected) => {
    const out = asciiOnly(text);
    expect(out).toBe(expected);
    expect(out).toHaveLength(text.length);
    expect(isAsciiText(out)).toBe(true);
  });

  it('makeAscii rewrites a file that is not, and leaves one that is', async () => {
    const f = join(dir, 'x.cjs');
    writeFileSync(f, '// é\nmodule.exports = 1;\n');
    expect(await makeAscii(f)).toBe(true);
    expect(readFileSync(f, 'utf8')).toBe('// ?\nmodule.exports = 1;\n');
    expect(await makeAscii(f)).toBe(false);
  });
});

describe('a built server bundle', () => {
  it('is ASCII only, and so is its preload', () => {
    expect(isAscii(readFileSync(file))).toBe(true);
    expect(isAscii(readFileSync(join(dirname(file), 'preload.cjs')))).toBe(true);
  });

  it.each([
    ['ASCII only (read as Latin-1)', 'process.stdout.write(JSON.stringify("\\u00e4" + "-ok"));', '"ä-ok"'],
    ['with UTF-8 text (read as UTF-8)', 'process.stdout.write(JSON.stringify("ä-é"));', '"ä-é"'],
  ])('the preload runs a bundle %s as Node would', (_name, code, expected) => {
    const own = mkdtempSync(join(dir, 'own-'));
    copyFileSync(join(dirname(file), 'preload.cjs'), join(own, 'preload.cjs'));
    writeFileSync(join(own, 'server.cjs'), `${code}\n`);
    const r = spawnSync(process.execPath, ['--require', join(own, 'preload.cjs'), join(own, 'server.cjs')], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected);
  });
});
