/**
 * `npm run deploy:gcf -- --project P --region R [--image IMAGE] [--invoker SA] [--dry-run]`:
 * deploys serverless.yml to Google Cloud as it can be deployed today (the Serverless plugin's
 * Deployment Manager was shut down on 2026-03-31): the event service on Cloud Run, each function
 * as a 2nd-gen Cloud Run function, the Scheduler jobs of custom.landscape.schedules
 * (./deploy-gcf/derive.ts derives the commands). Needs `npm run build` first (dist/functions) and
 * gcloud on the PATH; `--dry-run` prints the commands and needs neither. `${env:NAME}` values of
 * serverless.yml (REDIS_URL, LANDSCAPE_EVENTS_URL: the event service's URL, known after its first
 * deploy) come from the environment; without one the deploy stops before running anything.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import {
  deploySteps,
  shellLine,
  type DeployOptions,
  type Derived,
  type Env,
  type Step,
} from './deploy-gcf/derive.js';

const run = promisify(execFile);

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Runs a command; rejects when it fails (default: execFile, output shown). */
  exec?: (argv: readonly string[]) => Promise<void>;
  /** Whether gcloud runs (default: `gcloud --version`, output not shown). */
  haveGcloud?: () => Promise<boolean>;
}

interface Flags extends DeployOptions {
  dryRun?: boolean;
  file: string;
}

function parseFlags(argv: readonly string[]): Flags {
  return new Command('deploy:gcf')
    .requiredOption('--project <id>', 'Google Cloud project')
    .requiredOption('--region <region>', 'region of the functions, the event service and the Scheduler jobs')
    .option('--image <ref>', 'image with the event service (default: built with gcloud builds submit)')
    .option('--invoker <email>', 'service account of the event service and the Scheduler jobs')
    .option(
      '--kubeconfig-secret <name>',
      'Secret Manager secret with the kubeconfig the event service watches',
    )
    .option('--event-service <name>', 'Cloud Run service name of the event service')
    .option('--stage-dir <dir>', 'where the functions source folders are staged', 'dist/gcf')
    .option('--file <path>', 'the serverless description', 'serverless.yml')
    .option('--dry-run', 'print the commands, run nothing')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined }) // the error comes back through io.err
    .parse([...argv], { from: 'user' })
    .opts<Flags>();
}

async function defaultExec(argv: readonly string[]): Promise<void> {
  const { stdout, stderr } = await run(argv[0], argv.slice(1), { maxBuffer: 64 << 20 });
  process.stdout.write(stdout);
  process.stderr.write(stderr);
}

/** gcloud is on the PATH (`gcloud --version` runs). */
async function haveGcloud(): Promise<boolean> {
  try {
    await run('gcloud', ['--version']);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function describe(step: Step): string[] {
  if (step.kind === 'stage') return [`# stage ${step.dir}: ${step.files.map((f) => f.from).join(' ')}`];
  if (step.unless && step.orElse)
    return [
      `${shellLine(step.unless)} >/dev/null 2>&1 \\`,
      `  && ${shellLine(step.orElse)} \\`,
      `  || ${shellLine(step.argv)}`,
    ];
  return [shellLine(step.argv)];
}

async function perform(step: Step, exec: (argv: readonly string[]) => Promise<void>): Promise<void> {
  if (step.kind === 'stage') {
    await rm(step.dir, { recursive: true, force: true });
    for (const f of step.files) {
      await mkdir(dirname(f.to), { recursive: true });
      await copyFile(f.from, f.to);
    }
    return;
  }
  if (step.unless && step.orElse) {
    const exists = await exec(step.unless).then(
      () => true,
      () => false,
    );
    await exec(exists ? step.orElse : step.argv);
    return;
  }
  await exec(step.argv);
}

function dryRun(derived: Derived, io: CliIo): number {
  for (const m of derived.missing) io.err(`note: $${m} is not set; the commands show it as $${m}`);
  for (const step of derived.steps) describe(step).forEach(io.out);
  return 0;
}

/** The command; resolves with the exit code. */
export async function deployCli(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (err) {
    io.err((err as Error).message);
    return 2;
  }
  const derived = deploySteps(parseYaml(await readFile(flags.file, 'utf8')) as unknown, flags, env);
  for (const p of derived.problems) io.err(`${flags.file}: ${p}`);
  if (derived.problems.length > 0) return 1;
  if (flags.dryRun) return dryRun(derived, io);
  if (derived.missing.length > 0) {
    io.err(
      `not deployed: set ${derived.missing.map((m) => `$${m}`).join(', ')} (serverless.yml \${env:...} values)`,
    );
    return 1;
  }
  const exec = io.exec ?? defaultExec;
  if (!(await (io.haveGcloud ?? haveGcloud)())) {
    io.err(
      'not deployed: gcloud is missing (install the Google Cloud CLI, or use --dry-run to print the commands)',
    );
    return 1;
  }
  for (const step of derived.steps) {
    describe(step).forEach(io.out);
    await perform(step, exec);
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  deployCli(process.argv.slice(2), process.env, {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
  }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`deploy:gcf failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
