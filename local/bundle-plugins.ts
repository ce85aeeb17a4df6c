/**
 * The esbuild plugins of a bundle of local/bundle.ts besides its entries: a CommonJS server bundle
 * evaluates what a first event does not use on first use (./bundle-lazy.ts, ./bundle-mime.ts,
 * ./bundle-builtins.ts, ./bundle-lazy-deps.ts), patches what V8 builds slowly (./bundle-patches.ts)
 * and reads large JSON data from beside itself (./bundle-cold.ts); an `externalPackages` bundle
 * leaves node_modules out.
 */
import type { Plugin } from 'esbuild';
import { LAZY_BUILTINS, lazyBuiltins } from './bundle-builtins.js';
import { COLD_FILES, coldFiles } from './bundle-cold.js';
import { LAZY_MODULES, LAZY_NAME_FILES, LAZY_PACKAGES, lazyPackages } from './bundle-lazy.js';
import { LAZY_DEPENDENCIES, lazyDependencies } from './bundle-lazy-deps.js';
import { lazyMimeTypes } from './bundle-mime.js';
import { SOURCE_PATCHES, sourcePatches } from './bundle-patches.js';

/** What the plugins leave lazy or cold, for the bundle cache's key (a change to a list must build again). */
export const LAZY_LISTS: readonly unknown[] = [
  LAZY_PACKAGES,
  LAZY_NAME_FILES,
  LAZY_MODULES.map((m) => [String(m.importer), m.specifier]),
  LAZY_BUILTINS,
  LAZY_DEPENDENCIES,
  COLD_FILES.map(String),
  SOURCE_PATCHES.map((p) => [String(p.file), p.edits]),
];

/**
 * esbuild's `packages: 'external'` without the repository's own workspaces (`@landscape/*`,
 * TypeScript sources under packages/), which Node could not load unbundled.
 */
export const externalNpmPackages: Plugin = {
  name: 'external-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@landscape/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

/** The plugins of a CommonJS server bundle (`commonjs`) or of one without packages (`external`). */
export function bundlePlugins(commonjs: boolean, external: boolean): Plugin[] {
  return [
    ...(commonjs
      ? [
          lazyPackages(process.cwd()),
          lazyMimeTypes(),
          lazyBuiltins(),
          lazyDependencies(),
          coldFiles(),
          sourcePatches(),
        ]
      : []),
    ...(external ? [externalNpmPackages] : []),
  ];
}
