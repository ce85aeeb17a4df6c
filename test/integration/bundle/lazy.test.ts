/**
 * Which imports local/bundle-lazy.ts redirects to a lazy stand-in: only plain named imports of a
 * package, type-only names left out; any other form of import of that package in the same file
 * keeps the file on the eager path. And the stand-in itself: it requires nothing until a name is
 * read, then the real module once. And in a real bundle: requeue-tick, which never talks to a
 * cluster, carries none of client-node, and its Redis client sits behind a stand-in. And
 * client-node's names come from the files that define them (the same objects as the package's),
 * so a KubeConfig does not build the generated API; KubernetesObjectApi still does, when read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInThisContext } from 'node:vm';
import type { Plugin } from 'esbuild';
import { bundleFunction } from '../../../local/bundle.js';
import {
  LAZY_NAME_FILES,
  namedImports,
  packageFolder,
  realModule,
  standIn,
} from '../../../local/bundle-lazy.js';
import { bundleEntry, scratchDir } from '../../support/bundle-entry.js';

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

describe('realModule', () => {
  const files = new Map([['KubeConfig', '/p/node_modules/k/dist/config.js']]);
  const cases: Array<[string, string[], string]> = [
    ['from the package', ['Redis'], 'export { Redis } from "ioredis";'],
    ['from its file', ['KubeConfig'], 'export { KubeConfig } from "/p/node_modules/k/dist/config.js";'],
    [
      'both',
      ['KubeConfig', 'Watch'],
      'export { KubeConfig } from "/p/node_modules/k/dist/config.js";\nexport { Watch } from "ioredis";',
    ],
  ];
  it.each(cases)('%s', (_name, names, want) => {
    expect(realModule('ioredis', names, files)).toBe(want);
  });

  it('finds the package folder of an entry file, nested copies included', () => {
    expect(packageFolder('/r/node_modules/@a/b/dist/index.js', '@a/b')).toBe('/r/node_modules/@a/b');
    expect(packageFolder('/r/node_modules/x/node_modules/@a/b/i.js', '@a/b')).toBe(
      '/r/node_modules/x/node_modules/@a/b',
    );
    expect(packageFolder('/r/src/index.js', '@a/b')).toBeUndefined();
  });
});

describe("client-node's names from their own files", () => {
  const pkg = '@kubernetes/client-node';
  const folder = join(process.cwd(), 'node_modules', pkg);

  it.each(Object.entries(LAZY_NAME_FILES[pkg]))("%s is the package's own, from %s", async (name, file) => {
    const whole = (await import(pkg)) as Record<string, unknown>;
    const own = (await import(pathToFileURL(join(folder, file)).href)) as Record<string, unknown>;
    expect(own[name]).toBeDefined();
    expect(own[name]).toBe(whole[name]);
  });

  describe('in a bundle', () => {
    let dir: string;
    beforeAll(() => {
      dir = scratchDir('lazy-names');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    // records when client-node's serializer of the generated models is initialised
    const probe: Plugin = {
      name: 'probe',
      setup(b) {
        b.onLoad({ filter: /client-node\/dist\/gen\/models\/ObjectSerializer\.js$/ }, async (args) => ({
          contents: `${await readFile(args.path, 'utf8')}\n(globalThis.__generated ??= []).push(1);`,
          loader: 'js',
        }));
      },
    };

    it('a KubeConfig that loads a kubeconfig and signs a request does not build the generated API', async () => {
      const out = await bundleEntry(
        dir,
        [
          `import { KubeConfig, KubernetesObjectApi } from '${pkg}';`,
          'export async function config() {',
          '  const kc = new KubeConfig();',
          "  kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false }],",
          "    users: [{ name: 'u', token: 't' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });",
          '  const opts = { headers: {} };',
          '  await kc.applyToHTTPSOptions(opts);',
          '  return [kc, opts.headers.Authorization];',
          '}',
          'export const objects = (kc) => KubernetesObjectApi.makeApiClient(kc);',
        ].join('\n'),
        [probe],
      );
      const script = [
        `const b = require(${JSON.stringify(out)});`,
        'const seen = () => (globalThis.__generated ?? []).length;',
        'b.config().then(([kc, auth]) => {',
        '  const before = seen();',
        '  b.objects(kc);',
        '  process.stdout.write(JSON.stringify({ auth, before, after: seen() }));',
        '});',
      ].join('\n');
      const got = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as unknown;
      expect(got).toEqual({ auth: 'Bearer t', before: 0, after: 1 });
    }, 60_000);
  });
});
