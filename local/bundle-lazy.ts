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
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/** The packages loaded lazily. */
export const LAZY_PACKAGES: readonly string[] = ['@kubernetes/client-node', 'ioredis', 'pino', 'yaml'];

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
  return [
    'let real;',
    `const load = () => (real ??= require(${JSON.stringify(real)}));`,
    "Object.defineProperty(exports, '__esModule', { value: true });",
    `for (const n of ${JSON.stringify(names)})`,
    '  Object.defineProperty(exports, n, { enumerable: true, get: () => load()[n] });',
  ].join('\n');
}

/** `<pkg>#<names>`: one stand-in per set of names (so the real side is tree-shaken to them). */
function split(path: string): { pkg: string; names: string[] } {
  const i = path.lastIndexOf('#');
  return { pkg: path.slice(0, i), names: path.slice(i + 1).split(',') };
}

/** The esbuild plugin (`root`: where the packages resolve from, the repository). */
export function lazyPackages(root: string): Plugin {
  const sources = new Map<string, Promise<string>>();
  const filter = new RegExp(`^(${LAZY_PACKAGES.map(escapeRegExp).join('|')})$`);
  return {
    name: 'lazy-packages',
    setup(b) {
      b.onResolve({ filter }, async (args) => {
        if (args.namespace !== 'file' || args.kind !== 'import-statement') return undefined;
        if (args.importer.includes('/node_modules/')) return undefined;
        if (!sources.has(args.importer)) sources.set(args.importer, readFile(args.importer, 'utf8'));
        const names = namedImports(await sources.get(args.importer)!, args.path);
        if (names === undefined || names.length === 0) return undefined;
        return { path: `${args.path}#${names.join(',')}`, namespace: STAND_IN, sideEffects: false };
      });
      b.onResolve({ filter: /.*/, namespace: STAND_IN }, (args) =>
        args.path.startsWith(`${REAL}:`)
          ? { path: args.path.slice(REAL.length + 1), namespace: REAL }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: STAND_IN }, (args) => ({
        contents: standIn(`${REAL}:${args.path}`, split(args.path).names),
        loader: 'js',
        resolveDir: root,
      }));
      b.onLoad({ filter: /.*/, namespace: REAL }, (args) => {
        const { pkg, names } = split(args.path);
        return {
          contents: `export { ${names.join(', ')} } from ${JSON.stringify(pkg)};`,
          loader: 'js',
          resolveDir: root,
        };
      });
    },
  };
}
