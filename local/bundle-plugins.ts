/**
 * The esbuild plugins of a bundle of local/bundle.ts besides its entries: a CommonJS server bundle
 * evaluates what a first event does not use on first use (./bundle-lazy.ts, ./bundle-mime.ts,
 * ./bundle-builtins.ts, ./bundle-lazy-deps.ts) and reads large JSON data from beside itself
 * (./bundle-cold.ts); an `externalPackages` bundle leaves node_modules out.
 */
import type { Plugin } from 'esbuild';
import { lazyBuiltins } from './bundle-builtins.js';
import { coldFiles } from './bundle-cold.js';
import { lazyPackages } from './bundle-lazy.js';
import { lazyDependencies } from './bundle-lazy-deps.js';
import { lazyMimeTypes } from './bundle-mime.js';

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
      ? [lazyPackages(process.cwd()), lazyMimeTypes(), lazyBuiltins(), lazyDependencies(), coldFiles()]
      : []),
    ...(external ? [externalNpmPackages] : []),
  ];
}
