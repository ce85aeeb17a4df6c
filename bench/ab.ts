/**
 * A/B of the API server bench across source trees: `npx tsx bench/ab.ts --rounds 8 TREE TREE...`
 * runs `npx tsx bench/index.ts apiserver --n N` in each tree (a checkout with `npm ci` done, e.g.
 * `git worktree add ../before <commit>`), the trees alternating round by round so that a drift in
 * machine load touches all alike. Prints, per figure of the raw keep-alive side, each tree's
 * median, its ratio to the first tree's, and a two-sided permutation test of the rounds (p > 0.05:
 * the rounds cannot be told apart). Each run's output is kept in `--out` (default .local/ab).
 *
 * Server CPU of a phase = the phase's wall time × the server's CPU % (the bench's second table).
 * Nothing here fails on speed; the exit code is 1 only when a run of the bench failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Command } from 'commander';
import { parseCommand, positiveInt } from './common.js';
import { median, parseRun, permutationP, type Figures } from './apiserver/ab-stats.js';

function runOnce(tree: string, n: number): string | undefined {
  const r = spawnSync('npx', ['tsx', 'bench/index.ts', 'apiserver', '--n', String(n)], {
    cwd: tree,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return r.status === 0 ? r.stdout : undefined;
}

function report(trees: readonly string[], runs: Map<string, Figures[]>): void {
  const names = [...new Set(trees.flatMap((t) => runs.get(t)!.flatMap((f) => Object.keys(f))))];
  const base = runs.get(trees[0])!;
  const head = ['figure (raw keep-alive, medians)', ...trees.map((t, i) => (i ? `${t} (÷, p)` : t))];
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const name of names) {
    const a = base.map((f) => f[name]).filter((v) => v !== undefined);
    const cells = trees.map((t, i) => {
      const b = runs
        .get(t)!
        .map((f) => f[name])
        .filter((v) => v !== undefined);
      if (b.length === 0) return '—';
      const m = median(b).toLocaleString('en', { maximumFractionDigits: 1 });
      if (i === 0 || a.length === 0) return m;
      return `${m} (${(median(b) / median(a)).toFixed(2)}×, ${permutationP(a, b).toFixed(2)})`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

function main(argv: string[]): number {
  const cmd = new Command('ab')
    .description('API server bench in several source trees, alternating, with medians and a permutation test')
    .argument('<trees...>', 'checkouts to compare (the first is the base)')
    .option('--rounds <count>', 'runs per tree', positiveInt, 6)
    .option('--n <count>', 'objects per run (bench apiserver --n)', positiveInt, 3000)
    .option('--out <dir>', 'where each run’s output is kept', '.local/ab');
  const o = parseCommand<{ rounds: number; n: number; out: string }>(cmd, argv);
  if (typeof o === 'number') return o;
  const trees = cmd.args.map((t) => resolve(t));
  mkdirSync(o.out, { recursive: true });
  const runs = new Map(trees.map((t) => [t, [] as Figures[]]));
  let failed = 0;
  for (let round = 1; round <= o.rounds; round++) {
    for (const tree of trees) {
      const output = runOnce(tree, o.n);
      if (output === undefined) {
        failed++;
        console.error(`${tree}: round ${round} failed`);
        continue;
      }
      writeFileSync(join(o.out, `${basename(tree)}-${round}.log`), output);
      runs.get(tree)!.push(parseRun(output));
      console.error(`round ${round}/${o.rounds}: ${tree} done`);
    }
  }
  report(trees, runs);
  return failed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
