/**
 * `npm run drill`: the reliability drill. For each fault, a fresh embedded landscape runs mixed
 * work (DeployItems of both deployers, shoots to schedule, a ManagedSeedSet under a
 * SeedAutoscaler, probed shoots) while the fault is on; then the end state is checked and one
 * table printed: fault, load, operations, lost, wrongly duplicated, recovery time (also in resync
 * intervals). The last row
 * is the load run (1,000 DeployItems and 200 shoots while replicas are being killed). Exits 1
 * when anything was lost, wrongly duplicated, not recovered, or a secret was found.
 *
 *   npm run drill                                   every fault, then the load run
 *   npm run drill -- --faults api-500,replica-kill  some faults
 *   npm run drill -- --no-load --scale small        quick
 */
import { Command, InvalidArgumentError } from 'commander';
import { parseGoDuration } from '@landscape/apimachinery';
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULT_NAMES, FAULTS, isFaultName, type FaultName } from './faults.js';
import { runDrill, stopActiveRuns, type RunResult } from './run.js';
import { passed, renderReport, renderTable } from './table.js';
import type { DrillScale } from './types.js';

export const SCALES = {
  small: {
    mockItems: 10,
    manifestItems: 10,
    deleteShare: 0.2,
    shoots: 10,
    probedShoots: 1,
    managedSeedSet: false,
  },
  standard: {
    mockItems: 60,
    manifestItems: 40,
    deleteShare: 0.2,
    shoots: 40,
    probedShoots: 2,
    managedSeedSet: true,
  },
  load: {
    mockItems: 600,
    manifestItems: 400,
    deleteShare: 0.1,
    shoots: 200,
    probedShoots: 4,
    managedSeedSet: true,
  },
} as const satisfies Record<string, DrillScale>;
type ScaleName = keyof typeof SCALES;

interface CliOptions {
  faults: FaultName[];
  scale: ScaleName;
  load: boolean;
  seed: number;
  window: number;
  settleTimeout: number;
  resyncInterval: number;
  keep: boolean;
  json?: string;
}

function faultList(value: string): FaultName[] {
  const names = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !isFaultName(n));
  if (bad.length > 0)
    throw new InvalidArgumentError(`unknown fault ${bad.join(', ')} (known: ${FAULT_NAMES.join(', ')})`);
  return names as FaultName[];
}

function duration(value: string): number {
  try {
    return parseGoDuration(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function scaleName(value: string): ScaleName {
  if (!(value in SCALES)) throw new InvalidArgumentError(`must be one of ${Object.keys(SCALES).join(', ')}`);
  return value as ScaleName;
}

function seedNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

function parse(argv: string[]): CliOptions {
  const program = new Command('npm run drill --')
    .description(
      'Runs the landscape under each fault with mixed work and checks that nothing was lost or duplicated.',
    )
    .option('--faults <list>', `comma-separated faults (${FAULT_NAMES.join(', ')})`, faultList, [
      ...FAULT_NAMES,
    ])
    .option('--scale <name>', 'work per fault run: small, standard or load', scaleName, 'standard')
    .option('--no-load', 'skip the load run (1,000 DeployItems + 200 shoots while replicas are killed)')
    .option('--seed <n>', 'seed of the randomness (faults, picks)', seedNumber, 1)
    .option('--window <duration>', 'how long each fault stays on', duration, 20_000)
    .option(
      '--settle-timeout <duration>',
      'how long to wait for the end state after a fault',
      duration,
      300_000,
    )
    .option(
      '--resync-interval <duration>',
      'interval of the families’ resync PingSources (what repairs lost events)',
      duration,
      10_000,
    )
    .option('--keep', 'keep each run’s state directory (logs, dead letters, data)', false)
    .option('--json <file>', 'also write the results as JSON');
  program.parse(argv);
  return program.opts<CliOptions>();
}

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ctrl-C / SIGTERM: the landscape of the run in progress is stopped (no replica left behind). */
function stopOnSignals(): void {
  const stop = (signal: string): void => {
    console.error(`\n${signal}: stopping the drill...`);
    void stopActiveRuns().finally(() => process.exit(130));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const o = parse(process.argv);
  stopOnSignals();
  const runs: { fault: FaultName; scale: DrillScale }[] = o.faults.map((fault) => ({
    fault,
    scale: SCALES[o.scale],
  }));
  if (o.load) runs.push({ fault: 'replica-kill', scale: SCALES.load });
  const results: RunResult[] = [];
  const log = (m: string, f?: Record<string, unknown>): void =>
    console.error(`${new Date().toISOString().slice(11, 19)} ${m}${f ? ` ${JSON.stringify(f)}` : ''}`);
  for (const [i, run] of runs.entries()) {
    log(`run ${i + 1}/${runs.length}: ${run.fault}`);
    results.push(
      await runDrill({
        ...run,
        windowMs: o.window,
        settleTimeoutMs: o.settleTimeout,
        resyncIntervalMs: o.resyncInterval,
        seed: o.seed + i,
        repoRoot: REPO_ROOT,
        keep: o.keep,
        log,
      }),
    );
    // the table so far, so a drill stopped early still shows what it found
    log(`after run ${i + 1}/${runs.length}:\n${renderTable(results)}`);
  }
  const descriptions = Object.fromEntries(Object.values(FAULTS).map((f) => [f.name, f.description]));
  console.log(renderReport(results, descriptions));
  if (o.json) writeFileSync(o.json, JSON.stringify(results, null, 2));
  process.exitCode = passed(results) ? 0 : 1;
}

main().catch((e: unknown) => {
  console.error(`npm run drill failed: ${(e as Error).stack ?? String(e)}`);
  process.exit(2);
});
