/**
 * `train.cjs`: the code-cache trainer of the image (./train-code-cache.ts) as one CommonJS file,
 * for `RUN node /app/functions/train.cjs /app/functions` in the Dockerfile's final stage.
 */
import { build, stop } from 'esbuild';
import { resolve } from 'node:path';

const TRAINER = resolve('scripts/train-code-cache.ts');

export async function bundleTrainer(outFile: string): Promise<{ file: string; bytes: number }> {
  try {
    const result = await build({
      entryPoints: [TRAINER],
      outfile: outFile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      minify: true,
      logLevel: 'warning',
      metafile: true,
    });
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
    return { file: outFile, bytes };
  } finally {
    await stop();
  }
}
