/**
 * Which imports local/bundle-lazy.ts redirects to a lazy stand-in: only plain named imports of a
 * package, type-only names left out; any other form of import of that package in the same file
 * keeps the file on the eager path. And the stand-in itself: it requires nothing until a name is
 * read, then the real module once. And in a real bundle: requeue-tick, which never talks to a
 * cluster, carries none of client-node, and its Redis client sits behind a stand-in.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { bundleFunction } from '../../../local/bundle.js';
import { namedImports, standIn } from '../../../local/bundle-lazy.js';

describe('namedImports', () => {
  const cases: Array<[string, string, string[] | undefined]> = [
    ['named', "import { KubeConfig } from '@kubernetes/client-node';", ['KubeConfig']],
    [
      'several, renamed, type-only names dropped, over lines',
      "import {\n  type ApiType,\n  KubernetesObjectApi as Api,\n  KubeConfig,\n} from '@kubernetes/client-node';",
      ['KubeConfig', 'KubernetesObjectApi'],
    ],
    ['import type only', "import type { KubeConfig } from '@kubernetes/client-node';", []],
    ['export type', "export type { Redis } from 'ioredis';\nimport { Redis } from 'ioredis';", ['Redis']],
    ['default import', "import pino from 'pino';", undefined],
    ['namespace import', "import * as k8s from '@kubernetes/client-node';", undefined],
    ['default and named', "import YAML, { parse } from 'yaml';", undefined],
    ['value re-export', "export { parse } from 'yaml';", undefined],
    ['other package only', "import { parse } from 'yaml2';", []],
    ['named, double quotes', 'import { Redis } from "ioredis";', ['Redis']],
  ];
  it.each(cases)('%s', (_name, source, want) => {
    const pkg = source.includes('client-node')
      ? '@kubernetes/client-node'
      : source.includes('ioredis')
        ? 'ioredis'
        : source.includes('pino')
          ? 'pino'
          : 'yaml';
    expect(namedImports(source, pkg)).toEqual(want);
  });
});

describe('standIn', () => {
  it('requires the real module on the first read of a name, once', () => {
    const required: string[] = [];
    const real = { a: 1, b: 'two', c: 3 };
    const exports: Record<string, unknown> = {};
    const require = (id: string): unknown => {
      required.push(id);
      return real;
    };
    runInThisContext(`(function (exports, require) {\n${standIn('real-id', ['a', 'b'])}\n})`)(
      exports,
      require,
    );
    expect(required).toEqual([]);
    expect(Object.keys(exports)).toEqual(['a', 'b']);
    expect([exports['a'], exports['b'], exports['a']]).toEqual([1, 'two', 1]);
    expect(required).toEqual(['real-id']);
    expect(exports['__esModule']).toBe(true);
  });
});

describe('a server bundle', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bundle-lazy-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves out a lazy package no code that stays in the bundle uses', async () => {
    const b = await bundleFunction({
      name: 'requeue-tick',
      outDir: dir,
      kind: 'server',
      minify: false,
      sourcemap: false,
    });
    const code = readFileSync(b.file, 'utf8');
    expect(code).not.toContain('node_modules/@kubernetes/client-node/');
    expect(code).toContain('// lazy-package:ioredis#Redis');
    expect(code).toContain('node_modules/ioredis/built/Redis.js');
  }, 60_000);
});
