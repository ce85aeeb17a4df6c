/**
 * `tsx scripts/parallel.ts <npm script>... [--live <npm script>]`: runs npm scripts side by side.
 * `npm test` runs the type check, eslint and prettier this way beside jest: the checks are mostly
 * one core each and jest's end-to-end files leave a core idle while they wait, so side by side the
 * run is ~80 s shorter than one after the other. Each script's output is printed in one piece when
 * it ends, under its name, except the `--live` one's, which streams as it comes; the exit code is 1
 * when any failed, and the failed ones are named last.
 */
import { spawn } from 'node:child_process';

interface Outcome {
  script: string;
  code: number;
  output: string;
  ms: number;
}

function runScript(script: string, live: boolean): Promise<Outcome> {
  const started = Date.now();
  const stdio = live ? (['ignore', 'inherit', 'inherit'] as const) : (['ignore', 'pipe', 'pipe'] as const);
  const child = spawn('npm', ['run', '--silent', script], { stdio: [...stdio] });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => chunks.push(c));
  child.stderr?.on('data', (c: Buffer) => chunks.push(c));
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

async function main(args: string[]): Promise<number> {
  const at = args.indexOf('--live');
  const live = at === -1 ? undefined : args[at + 1];
  const scripts = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 1)];
  if (scripts.length === 0 || (at !== -1 && live === undefined)) {
    console.error('usage: tsx scripts/parallel.ts <npm script>... [--live <npm script>]');
    return 2;
  }
  const outcomes = await Promise.all(
    scripts.map(async (s) => {
      const o = await runScript(s, s === live);
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
