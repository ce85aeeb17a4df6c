/**
 * What the runtime bench starts: bare `node -e 0`, and each function as a `server` bundle built by
 * `local/bundle.ts`, bundled (one file, the framework inside) and unbundled (`externalPackages`:
 * only the project's code bundled, node_modules loaded from disk). The bundles go under
 * `.local/bench/runtime/` (gitignored, inside the repo so node_modules resolves).
 */
import { resolve } from 'node:path';
import { bundleFunction } from '../../local/bundle.js';

export const PACKAGINGS = ['bundled', 'unbundled'] as const;
export type Packaging = (typeof PACKAGINGS)[number];

export interface BenchFunction {
  name: string;
  functionsDir: string;
}

/** The no-op fixture first: it is the floor every other function row is compared with. */
export const BENCH_FUNCTIONS: readonly BenchFunction[] = [
  { name: 'noop', functionsDir: 'bench/fixtures/functions' },
  { name: 'requeue-tick', functionsDir: 'functions' },
];

export const OUT_DIR = '.local/bench/runtime';

export interface FunctionVariant {
  kind: 'function';
  id: string;
  fn: string;
  packaging: Packaging;
  file: string;
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

/** Builds every function in both packagings; `envFor` gives a function's extra environment. */
export async function buildVariants(
  envFor: (fn: string) => Record<string, string>,
  outDir = OUT_DIR,
): Promise<FunctionVariant[]> {
  const out: FunctionVariant[] = [];
  for (const f of BENCH_FUNCTIONS) {
    for (const packaging of PACKAGINGS) {
      const bundle = await bundleFunction({
        name: f.name,
        functionsDir: f.functionsDir,
        outDir: resolve(outDir, packaging),
        kind: 'server',
        externalPackages: packaging === 'unbundled',
      });
      out.push({
        kind: 'function',
        id: variantId(f.name, packaging),
        fn: f.name,
        packaging,
        file: bundle.file,
        bytes: bundle.bytes,
        env: envFor(f.name),
      });
    }
  }
  return out;
}
