/**
 * A test's entry file bundled as the server bundles are (CommonJS for node20 with the server
 * bundles' plugins, local/bundle-plugins.ts, and their cold files copied beside it), for the tests
 * that check what those plugins do to real packages. The folder is under the repository
 * (`.local/`), so that the packages resolve from its node_modules.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { copyColdFiles } from '../../local/bundle-cold.js';
import { bundlePlugins } from '../../local/bundle-plugins.js';

/** A new folder under `.local/` for a test's bundles (the caller removes it). */
export function scratchDir(prefix: string): string {
  mkdirSync(join(process.cwd(), '.local'), { recursive: true });
  return mkdtempSync(join(process.cwd(), '.local', `${prefix}-`));
}

/**
 * Writes `source` as `entry.ts` in `dir` and bundles it to `bundle.cjs` beside it; `first` are
 * plugins that run before the server bundles' own (a probe). Returns the bundle's path.
 */
export async function bundleEntry(dir: string, source: string, first: Plugin[] = []): Promise<string> {
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, source);
  const outfile = join(dirname(entry), 'bundle.cjs');
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
    metafile: true,
    plugins: [...first, ...bundlePlugins(true, false)],
  });
  await copyColdFiles(result.metafile, [outfile]);
  return outfile;
}
