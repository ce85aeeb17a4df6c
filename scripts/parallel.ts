/**
 * `tsx scripts/parallel.ts <npm script>...`: runs npm scripts side by side (`npm test` runs the type
 * check, eslint and prettier this way: each uses one core, one after the other they took ~95 s of
 * a 2-core machine's time alone). Each script's output is printed in one piece when it ends, under
 * its name; the exit code is 1 when any failed, and the failed ones are named last.
 */
import { spawn } from 'node:child_process';

interface Outcome {
  script: string;
  code: number;
  output: string;
  ms: number;
}

function runScript(script: string): Promise<Outcome> {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    const done = (code: number, extra = ''): void =>
      resolve({
        script,
        code,
        output: Buffer.concat(chunks).toString('utf8') + extra,
        ms: Date.now() - started,
      });
    child.on('error', (err) => done(1, `\n${err.message}\n`));
    child.on('close', (code, signal) => done(code ?? 1, signal ? `\nkilled by ${signal}\n` : ''));
  });
}

async function main(scripts: string[]): Promise<number> {
  if (scripts.length === 0) {
    console.error('usage: tsx scripts/parallel.ts <npm script>...');
    return 2;
  }
  const outcomes = await Promise.all(
    scripts.map(async (s) => {
      const o = await runScript(s);
      const verdict = o.code === 0 ? 'ok' : `FAILED (exit ${o.code})`;
      process.stdout.write(`\n> ${s}: ${verdict} in ${(o.ms / 1000).toFixed(1)} s\n${o.output}`);
      return o;
    }),
  );
  const failed = outcomes.filter((o) => o.code !== 0).map((o) => o.script);
  if (failed.length > 0) console.error(`\nfailed: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
