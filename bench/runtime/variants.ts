/**
 * What the runtime bench starts: bare `node -e 0`, and each function as a `server` bundle built by
 * `local/bundle.ts`:
 * - `bundled`: one CommonJS file, the framework inside, started as a replica and the image start
 *   it (`node <REPLICA_V8_FLAGS> --require preload.cjs server.cjs`) with the code cache a training
 *   start wrote (shared/serve/train.ts, with the same environment and flags as the measured starts);
 * - `bundled, no code cache`: the same file as `node <REPLICA_V8_FLAGS> server.cjs`;
 * - `unbundled` (`externalPackages`): only the project's code bundled (an ES module),
 *   node_modules loaded from disk.
 * The bundles go under `.local/bench/runtime/` (gitignored, inside the repo so node_modules
 * resolves).
 */
import { join, resolve } from 'node:path';
import { bundleFunction } from '../../local/bundle.js';
import { trainCodeCache } from '../../shared/serve/train.js';
import { REPLICA_V8_FLAGS } from '../../shared/serve/v8-flags.js';
import { childEnv } from './children.js';

export const PACKAGINGS = ['bundled', 'bundled, no code cache', 'unbundled'] as const;
export type Packaging = (typeof PACKAGINGS)[number];

export interface BenchFunction {
  name: string;
  functionsDir: string;
}

/** The no-op fixture first: it is the floor every other function row is compared with. */
export const BENCH_FUNCTIONS: readonly BenchFunction[] = [
  { name: 'noop', functionsDir: 'bench/fixtures/functions' },
  { name: 'requeue-tick', functionsDir: 'functions' },
  { name: 'deployer-mock', functionsDir: 'functions' },
];

export const OUT_DIR = '.local/bench/runtime';

export interface FunctionVariant {
  kind: 'function';
  id: string;
  fn: string;
  packaging: Packaging;
  file: string;
  /** Node flags before the file. */
  nodeArgs: string[];
  bytes: number;
  /** Environment beyond PATH, HOME, PORT and POD_NAME. */
  env: Record<string, string>;
}

export interface BareVariant {
  kind: 'bare';
  id: 'node -e 0';
}

export type Variant = BareVariant | FunctionVariant;

export const BARE: BareVariant = { kind: 'bare', id: 'node -e 0' };

export function variantId(fn: string, packaging: Packaging): string {
  return `${fn} ${packaging}`;
}

/** Builds every function in every packaging; `envFor` gives a function's extra environment. */
export async function buildVariants(
  envFor: (fn: string) => Record<string, string>,
  outDir = OUT_DIR,
): Promise<FunctionVariant[]> {
  const out: FunctionVariant[] = [];
  for (const f of BENCH_FUNCTIONS) {
    for (const externalPackages of [false, true]) {
      const bundle = await bundleFunction({
        name: f.name,
        functionsDir: f.functionsDir,
        outDir: resolve(outDir, externalPackages ? 'unbundled' : 'bundled'),
        kind: 'server',
        externalPackages,
      });
      const variant = (packaging: Packaging, nodeArgs: string[]): FunctionVariant => ({
        kind: 'function',
        id: variantId(f.name, packaging),
        fn: f.name,
        packaging,
        file: bundle.file,
        nodeArgs,
        bytes: bundle.bytes,
        env: envFor(f.name),
      });
      // every variant with the replicas' V8 flags (the activator's and the image's; the cache is trained under them)
      const flags = [...REPLICA_V8_FLAGS];
      if (externalPackages) {
        out.push(variant('unbundled', flags));
        continue;
      }
      await trainCodeCache(bundle.file, { env: childEnv(envFor(f.name)) });
      out.push(variant('bundled', [...flags, '--require', join(resolve(bundle.file, '..'), 'preload.cjs')]));
      out.push(variant('bundled, no code cache', flags));
    }
  }
  return out;
}
