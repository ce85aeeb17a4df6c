/**
 * `npm run build`: the bundles of every function (local/bundle.ts) into dist/functions/<name>/:
 * `server.js` (self-starting, for a Knative image) and `index.js` (the module for Cloud Functions).
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { BUNDLE_KINDS, bundleFunction, functionNames } from '../local/bundle.js';

async function main(): Promise<void> {
  const outDir = join('dist', 'functions');
  await rm(outDir, { recursive: true, force: true });
  const names = await functionNames('functions');
  if (names.length === 0) {
    console.log('build: no functions (functions/<name>/handler.ts); nothing to bundle');
    return;
  }
  for (const name of names) {
    for (const kind of BUNDLE_KINDS) {
      const b = await bundleFunction({ name, outDir, kind });
      console.log(
        `build: ${name.padEnd(24)} ${kind.padEnd(6)} ${(b.bytes / 1024).toFixed(0).padStart(6)} KiB  → ${b.file}`,
      );
    }
  }
}

main().catch((e: unknown) => {
  console.error(`build failed: ${(e as Error).message}`);
  process.exit(1);
});
