/**
 * Packages a server bundle loads on first use rather than at start (issue 16, cold start): an
 * esbuild plugin for the CommonJS server bundles of local/bundle.ts.
 *
 * esbuild scope-hoists the ES modules it bundles: the top level of every module a function
 * imports (client-node's model classes, ioredis's commands, pino, yaml) runs when the bundle
 * loads, whether its first event uses them or not. Here `import { A, B } from '<pkg>'` in the
 * project's own code is answered by a small CommonJS stand-in whose exports A and B are getters
 * that `require()` a module re-exporting just A and B from the real package, the first time one
 * of them is read. esbuild keeps that module and the package in the same file, wrapped in its
 * lazy `__esm`/`__commonJS` initialisers (and still tree-shaken to what is re-exported), and the
 * importer reads `import_pkg.A` at each use, so nothing of the package runs until a function
 * really uses it. The code is the same, only its evaluation moves; none of these packages has a
 * side effect at load that a function relies on.
 * The stand-in is marked free of side effects, so a bundle whose remaining code uses none of
 * its names (requeue-tick and client-node: only the cluster helpers of shared/function it never
 * calls import it) leaves the package out altogether.
 *
 * Only a project file (outside node_modules) whose imports of the package are all of the form
 * `import { … } from '<pkg>'` (type-only names left out) is redirected; any other import (default,
 * namespace, a package's own requires) resolves as before, eagerly.
 *
 * Two refinements for client-node, whose index re-exports its generated API (~1,000 model classes
 * built at load, with the ObjectSerializer's registry of them):
 * - a name the table LAZY_NAME_FILES knows is taken from the file that defines it rather than the
 *   package's index, which would initialise every module the index re-exports (reading
 *   `KubeConfig` would build the whole generated API);
 * - LAZY_MODULES names imports inside a package that go through the same stand-in: client-node's
 *   `config.js` imports `createConfiguration` and `ServerConfiguration` from the generated API
 *   only for `makeApiClient`, so a KubeConfig that loads a kubeconfig and signs requests
 *   (shared/kube) never builds it; `makeApiClient` and `KubernetesObjectApi` still do, on first use.
 * test/integration/bundle/lazy.test.ts checks both against the installed client-node.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { Plugin } from 'esbuild';

/** The packages loaded lazily. */
export const LAZY_PACKAGES: readonly string[] = ['@kubernetes/client-node', 'ioredis', 'pino', 'yaml'];

/**
 * Where a name of a lazy package is defined (relative to the package's folder), for the names a
 * function reads from client-node: the stand-in loads that file alone.
 */
export const LAZY_NAME_FILES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '@kubernetes/client-node': {
    KubeConfig: 'dist/config.js',
    KubernetesObjectApi: 'dist/object.js',
    ApiException: 'dist/gen/apis/exception.js',
  },
};

/** Imports inside a package answered by a stand-in: the importing file and the specifier. */
export const LAZY_MODULES: readonly { importer: RegExp; specifier: string }[] = [
  { importer: /\/node_modules\/@kubernetes\/client-node\/dist\/config\.js$/, specifier: './gen/index.js' },
];

const STAND_IN = 'lazy-package';
const REAL = 'lazy-package-real';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The value names `source` imports from `pkg`, or undefined when one of its imports of `pkg` is
 * not a plain named import (then the package is loaded eagerly for that file).
 */
export function namedImports(source: string, pkg: string): string[] | undefined {
  const from = `\\s+from\\s+['"]${escapeRegExp(pkg)}['"]`;
  const all = source.match(new RegExp(`^\\s*(import|export)\\b[^;]*?${from}`, 'gm')) ?? [];
  const names = new Set<string>();
  for (const stmt of all) {
    const m = new RegExp(`^\\s*import\\s+(type\\s+)?\\{([^}]*)\\}${from}$`).exec(stmt);
    if (!m) {
      if (/^\s*export\s+type\s/.test(stmt)) continue;
      return undefined;
    }
    if (m[1]) continue;
    for (const spec of m[2].split(',')) {
      const s = spec.trim();
      if (s === '' || s.startsWith('type ')) continue;
      const name = s.split(/\s+as\s+/)[0];
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) return undefined;
      names.add(name);
    }
  }
  return [...names].sort();
}

/** The CommonJS stand-in: one getter per name; `real` is required on the first read. */
export function standIn(real: string, names: readonly string[]): string {
  return standInOf([{ real, names }]);
}

/** A stand-in over several real modules: each is required on the first read of one of its names. */
export function standInOf(groups: ReadonlyArray<{ real: string; names: readonly string[] }>): string {
  return [
    "Object.defineProperty(exports, '__esModule', { value: true });",
    ...groups.flatMap(({ real, names }, i) => [
      `let real${i};`,
      `const load${i} = () => (real${i} ??= require(${JSON.stringify(real)}));`,
      `for (const n of ${JSON.stringify(names)})`,
      `  Object.defineProperty(exports, n, { enumerable: true, get: () => load${i}()[n] });`,
    ]),
  ].join('\n');
}

/**
 * The real modules behind the stand-in of `pkg#names`: one per name LAZY_NAME_FILES places in a
 * file of its own (so reading it loads that file alone), one for the rest.
 */
export function realGroups(path: string): Array<{ real: string; names: string[] }> {
  const { pkg, names } = split(path);
  const table = LAZY_NAME_FILES[pkg] ?? {};
  const own = names.filter((n) => table[n] !== undefined);
  const rest = names.filter((n) => table[n] === undefined);
  return [...own.map((n) => [n]), ...(rest.length > 0 ? [rest] : [])].map((group) => ({
    real: `${REAL}:${pkg}#${group.join(',')}`,
    names: group,
  }));
}

/** `<pkg>#<names>`: one stand-in per set of names (so the real side is tree-shaken to them). */
function split(path: string): { pkg: string; names: string[] } {
  const i = path.lastIndexOf('#');
  return { pkg: path.slice(0, i), names: path.slice(i + 1).split(',') };
}

/**
 * The module behind a stand-in: the names re-exported from the files that define them
 * (`files`: name → absolute path, from LAZY_NAME_FILES), the rest from `pkg` itself.
 */
export function realModule(
  pkg: string,
  names: readonly string[],
  files: ReadonlyMap<string, string>,
): string {
  const rest = names.filter((n) => !files.has(n));
  return [
    ...names.filter((n) => files.has(n)).map((n) => `export { ${n} } from ${JSON.stringify(files.get(n))};`),
    ...(rest.length > 0 ? [`export { ${rest.join(', ')} } from ${JSON.stringify(pkg)};`] : []),
  ].join('\n');
}

/** The folder of package `pkg` that `entry` (a file of it) lies in. */
export function packageFolder(entry: string, pkg: string): string | undefined {
  const marker = `/node_modules/${pkg}/`;
  const i = entry.lastIndexOf(marker);
  return i < 0 ? undefined : entry.slice(0, i + marker.length - 1);
}

/** The esbuild plugin (`root`: where the packages resolve from, the repository). */
export function lazyPackages(root: string): Plugin {
  const sources = new Map<string, Promise<string>>();
  const filter = new RegExp(`^(${LAZY_PACKAGES.map(escapeRegExp).join('|')})$`);
  return {
    name: 'lazy-packages',
    setup(b) {
      // name → the absolute file defining it, for the names LAZY_NAME_FILES lists
      const nameFiles = async (pkg: string, names: readonly string[]): Promise<Map<string, string>> => {
        const table = LAZY_NAME_FILES[pkg] ?? {};
        const out = new Map<string, string>();
        if (!names.some((n) => table[n] !== undefined)) return out;
        const entry = await b.resolve(pkg, { kind: 'import-statement', resolveDir: root });
        const folder = entry.errors.length === 0 ? packageFolder(entry.path, pkg) : undefined;
        if (folder === undefined) return out;
        for (const n of names) if (table[n] !== undefined) out.set(n, join(folder, table[n]));
        return out;
      };
      b.onResolve({ filter }, async (args) => {
        if (args.namespace !== 'file' || args.kind !== 'import-statement') return undefined;
        if (args.importer.includes('/node_modules/')) return undefined;
        if (!sources.has(args.importer)) sources.set(args.importer, readFile(args.importer, 'utf8'));
        const names = namedImports(await sources.get(args.importer)!, args.path);
        if (names === undefined || names.length === 0) return undefined;
        return { path: `${args.path}#${names.join(',')}`, namespace: STAND_IN, sideEffects: false };
      });
      for (const m of LAZY_MODULES)
        b.onResolve({ filter: new RegExp(`^${escapeRegExp(m.specifier)}$`) }, async (args) => {
          if (args.namespace !== 'file' || args.kind !== 'import-statement') return undefined;
          if (!m.importer.test(args.importer)) return undefined;
          if (!sources.has(args.importer)) sources.set(args.importer, readFile(args.importer, 'utf8'));
          const names = namedImports(await sources.get(args.importer)!, args.path);
          if (names === undefined || names.length === 0) return undefined;
          const target = resolvePath(dirname(args.importer), args.path);
          return { path: `${target}#${names.join(',')}`, namespace: STAND_IN, sideEffects: false };
        });
      b.onResolve({ filter: /.*/, namespace: STAND_IN }, (args) =>
        args.path.startsWith(`${REAL}:`)
          ? { path: args.path.slice(REAL.length + 1), namespace: REAL }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: STAND_IN }, (args) => ({
        contents: standInOf(realGroups(args.path)),
        loader: 'js',
        resolveDir: root,
      }));
      b.onLoad({ filter: /.*/, namespace: REAL }, async (args) => {
        const { pkg, names } = split(args.path);
        const files = await nameFiles(pkg, names);
        return { contents: realModule(pkg, names, files), loader: 'js', resolveDir: root };
      });
    },
  };
}
