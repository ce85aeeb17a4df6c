/**
 * `node train.cjs <functions dir>`: a training start of every function bundle below the folder
 * (`<name>/server.cjs`, shared/serve/train.ts), which writes `server.cjs.codecache` beside it. The
 * image runs it in its final stage (Dockerfile), so its replicas start from V8's code cache: V8
 * takes a cache only from the same Node version and flags, so it must run with the image's node,
 * and the Services' read-only root filesystem keeps a replica from writing one itself. Each
 * start gets PATH and HOME only (no configuration: the function answers 500, which does not
 * matter, the cache holds what the start and the request compiled) and NODE_ENV, and
 * `--enable-source-maps` when
 * this process has source maps on, as the replicas will.
 *
 * Exits 1 when a bundle did not serve or wrote no cache, naming it; the image build then fails.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { trainCodeCache } from '../shared/serve/train.js';

/** The server bundles below `dir`, one per function folder, in name order. */
export function serverBundles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name, 'server.cjs'))
    .filter((f) => existsSync(f))
    .sort();
}

/** PATH, HOME and NODE_ENV of this process: what a replica of the image has before its config. */
function trainingEnv(from: NodeJS.ProcessEnv): Record<string, string> {
  const keys = ['PATH', 'HOME', 'NODE_ENV'].filter((k) => from[k] !== undefined);
  return Object.fromEntries(keys.map((k) => [k, from[k] ?? '']));
}

async function main(argv: string[]): Promise<number> {
  const dir = argv[0];
  if (dir === undefined || argv.length > 1) {
    console.error('usage: node train.cjs <functions dir>');
    return 2;
  }
  const bundles = serverBundles(resolve(dir));
  if (bundles.length === 0) {
    console.error(`train: no <name>/server.cjs below ${dir}`);
    return 1;
  }
  const nodeArgs = process.sourceMapsEnabled ? ['--enable-source-maps'] : [];
  const env = trainingEnv(process.env);
  let failed = 0;
  for (const file of bundles) {
    try {
      console.log(`train: ${await trainCodeCache(file, { nodeArgs, env })}`);
    } catch (e) {
      failed++;
      console.error(`train: ${(e as Error).message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
