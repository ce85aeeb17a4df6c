// The house's import rules as ESLint rules (eslint.config.js turns them on as errors):
//   layers:   who may import whom (README "Layout"): packages/ below everything; shared/ above
//             packages/apimachinery; functions/<f>/ and triggers/ above shared/; local/ (the
//             landscape) on top; the embedded API server (packages/kube-apiserver) and local/ are
//             used only by local/ and the tooling (test/, bench/, scripts/: build, packaging
//             checks); a function never imports another function.
//   no-cycle: no import cycle, type-only imports included (one graph of the repository's
//             TypeScript files, built once per ESLint process from their import specifiers).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const WORKSPACES = {
  '@landscape/apimachinery': 'packages/apimachinery/src/index.ts',
  '@landscape/kube-apiserver': 'packages/kube-apiserver/src/index.ts',
  '@landscape/kube-apiserver/testing': 'packages/kube-apiserver/src/testing/index.ts',
};
const SKIP = new Set(['node_modules', '.git', '.local', 'dist', 'coverage']);
const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bmockModule\(\s*)(['"])([^'"\n]+)\1/g;

/** Repository-relative path with forward slashes. */
function rel(abs) {
  return relative(ROOT, abs).split(sep).join('/');
}

/** The repository file an import specifier names, or undefined (npm packages, node builtins). */
export function resolveSpecifier(fromAbs, spec) {
  if (spec in WORKSPACES) return join(ROOT, WORKSPACES[spec]);
  if (spec.startsWith('@landscape/')) return join(ROOT, 'packages', spec.slice('@landscape/'.length));
  if (!spec.startsWith('.')) return undefined;
  const p = resolve(dirname(fromAbs), spec);
  if (p.endsWith('.js') && existsSync(`${p.slice(0, -3)}.ts`)) return `${p.slice(0, -3)}.ts`;
  return p;
}

/** The unit a file belongs to, e.g. `functions/weeder`, `shared`, `local`, `packages/kube-apiserver`. */
export function unitOf(path) {
  const [top, second] = path.split('/');
  if (top === 'functions' || top === 'packages' || top === 'triggers') return `${top}/${second}`;
  return top;
}

const isTestFile = (path) => /\.(test|fixtures)\.ts$/.test(path) || path.startsWith('test/');

/** Why `from` may not import `to` (repository-relative paths), or undefined when it may. */
export function layerViolation(from, to) {
  const a = unitOf(from);
  const b = unitOf(to);
  if (a === b) return undefined;
  const top = a.split('/')[0];
  const target = b.split('/')[0];
  if (b === 'test' && isTestFile(from)) return undefined; // tests share test/support
  if (['test', 'bench', 'scripts'].includes(top)) return undefined; // tests and dev tooling
  if (b === 'packages/apimachinery') return undefined; // the bottom layer, for everyone
  if (b === 'packages/kube-apiserver')
    return top === 'local'
      ? undefined
      : 'only local/ and the tooling (test/, bench/, scripts/) use the embedded API server';
  if (top === 'packages') return `a package imports only itself and @landscape/apimachinery, not ${b}/`;
  if (target === 'local') return 'only the tooling (test/, bench/, scripts/) imports local/';
  if (['test', 'bench', 'scripts'].includes(target)) return `product code does not import ${target}/`;
  if (top === 'shared') return `shared/ is below ${target}/: shared/ imports only shared/ and packages/`;
  if (top === 'functions')
    return target === 'shared'
      ? undefined
      : `a function imports only itself, shared/ and packages/, not ${b}/`;
  if (top === 'triggers')
    return ['shared', 'triggers'].includes(target)
      ? undefined
      : `triggers/ imports only triggers/, shared/ and packages/, not ${b}/`;
  if (top === 'local' && target === 'functions' && !/\/handler\.ts$/.test(to) && !isTestFile(from))
    return `local/ uses a function only through its handler.ts (its public module), not ${to}`;
  return undefined;
}

function tsFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

let graph;
/** file (absolute) → the repository files it imports; built once per process. */
function importGraph() {
  if (graph) return graph;
  graph = new Map();
  for (const file of tsFiles(ROOT)) {
    const text = readFileSync(file, 'utf8');
    const deps = new Set();
    for (const m of text.matchAll(SPEC)) {
      const target = resolveSpecifier(file, m[2]);
      if (target && target.endsWith('.ts')) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** A cycle through `start` and its import of `first`, as repository paths, or undefined. */
export function cycleThrough(start, first, g = importGraph()) {
  const seen = new Set();
  const stack = [[first, [start, first]]];
  while (stack.length > 0) {
    const [file, path] = stack.pop();
    if (file === start) return path.map(rel);
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of g.get(file) ?? []) stack.push([next, [...path, next]]);
  }
  return undefined;
}

function specifierNodes(context, check) {
  const visit = (node) => {
    if (node.source && typeof node.source.value === 'string') check(node, node.source.value);
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: visit,
  };
}

const layers = {
  meta: { type: 'problem', docs: { description: 'the import layers of the house' }, schema: [] },
  create(context) {
    const from = rel(context.filename);
    return specifierNodes(context, (node, spec) => {
      const target = resolveSpecifier(context.filename, spec);
      if (!target || !target.startsWith(ROOT) || target.includes('/node_modules/')) return;
      const why = layerViolation(from, rel(target));
      if (why) context.report({ node: node.source, message: `layers: ${from} imports ${spec}: ${why}` });
    });
  },
};

const noCycle = {
  meta: { type: 'problem', docs: { description: 'no import cycle (type-only included)' }, schema: [] },
  create(context) {
    const self = context.filename;
    return specifierNodes(context, (node, spec) => {
      const target = resolveSpecifier(self, spec);
      if (!target || !target.endsWith('.ts')) return;
      const cycle = cycleThrough(self, target);
      if (cycle) context.report({ node: node.source, message: `import cycle: ${cycle.join(' -> ')}` });
    });
  },
};

export default { meta: { name: 'landscape' }, rules: { layers, 'no-cycle': noCycle } };
