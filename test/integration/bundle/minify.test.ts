/**
 * The embedded landscape's bundles (`minify: 'whitespace'`, local/knative/runtime.ts): whitespace
 * and comments gone, every name kept, and ASCII only (V8 then holds the source as a one-byte
 * string); against `minify: false` (comments kept) and the default (names mangled).
 */
import { isAscii } from 'node:buffer';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleFunction } from '../../../local/bundle.js';

let dir: string;
const built = new Map<string, Buffer>();
let legal: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-minify-'));
  for (const minify of [false, 'whitespace', true] as const) {
    const b = await bundleFunction({
      name: 'sleeper',
      functionsDir: 'test/integration/activator/functions',
      outDir: join(dir, String(minify)),
      kind: 'server',
      minify,
      sourcemap: false,
    });
    built.set(String(minify), readFileSync(b.file));
    if (minify === 'whitespace') legal = readdirSync(dirname(b.file)).filter((f) => f.endsWith('.LEGAL.txt'));
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("'whitespace' keeps the names, drops what only whitespace and comments were, and is ASCII only", () => {
  const none = built.get('false')!;
  const ws = built.get('whitespace')!;
  const full = built.get('true')!;
  // the handler's local function keeps its name (a stack names it); full minification renames it
  expect(ws.toString('latin1')).toMatch(/function stackHere\(/);
  expect(full.toString('latin1')).not.toMatch(/function stackHere\(/);
  expect(ws.length).toBeLessThan(none.length * 0.8);
  expect(isAscii(ws)).toBe(true);
  // the packages' licenses are beside it, not in it (a license's text may be non-ASCII)
  expect(ws.toString('latin1')).not.toMatch(/Bundled license information/);
  expect(none.toString('latin1')).toMatch(/Bundled license information/);
  expect(legal.length).toBeGreaterThan(0);
});
