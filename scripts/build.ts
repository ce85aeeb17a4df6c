/**
 * `npm run build`: the bundles of every function (local/bundle.ts) into dist/functions/<name>/:
 * `server.js` (self-starting, for a Knative image: it loads `server.cjs`) with its `preload.cjs`, and `index.js` (the
 * module for Cloud Functions). One copy of the preload (the same file in every folder) goes to
 * dist/functions/preload.cjs, for the image's `NODE_OPTIONS=--require=/app/functions/preload.cjs`:
 * a Service's command names only server.js. And `dist/functions/train.cjs`
 * (scripts/train-code-cache.ts), which the image's final stage runs to write each bundle's code cache.
 */
import { join } from 'node:path';
import { copyFile, rm } from 'node:fs/promises';
import { BUNDLE_KINDS, bundleFunction, functionNames } from '../local/bundle.js';
import { bundleTrainer } from './trainer-bundle.js';

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
  await copyFile(join(outDir, names[0], 'preload.cjs'), join(outDir, 'preload.cjs'));
  console.log(`build: preload                          → ${join(outDir, 'preload.cjs')}`);
  const trainer = await bundleTrainer(join(outDir, 'train.cjs'));
  console.log(`build: code-cache trainer               → ${trainer.file}`);
}

main().catch((e: unknown) => {
  console.error(`build failed: ${(e as Error).message}`);
  process.exit(1);
});
