/**
 * `npm run validate-config [-- --config-dir DIR] [--knative-dir DIR]`: checks every config file
 * with the `loadConfig` of its function (`functions/<name>/config.ts`) and lists every problem
 * with its file; exits 1 when there is any.
 * - `config/<name>.yaml` (or DIR/<name>.yaml): the embedded landscape's config of `<name>`, with
 *   the environment the landscape gives every replica (REDIS_URL, K_SINK: placeholders here). A
 *   function without a file is checked with its defaults; a file of no function is a problem.
 * - The `config.yaml` of each function's ConfigMap in `knative/` (mounted by its Knative
 *   Service at the folder of CONFIG_FILE), with the environment that Service sets (values from
 *   Secrets and the downward API as placeholders).
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import {
  configMountOf,
  configProblems,
  label,
  readPackaging,
  serviceOf,
  type RepoPaths,
} from './packaging/index.js';

export interface ValidateResult {
  /** The files and ConfigMaps that were checked. */
  checked: string[];
  /** Every problem, each starting with its file. */
  problems: string[];
}

/** Checks the configs of a checkout (pure but for reading the files). */
export async function validateConfigs(paths: RepoPaths = {}): Promise<ValidateResult> {
  const set = await readPackaging({ ...paths, importHandlers: false });
  const checked = set.configFiles.map((f) => f.file);
  for (const fn of set.functions) {
    const service = serviceOf(set, fn.name);
    const cm = service ? configMountOf(set, service).mount?.configMap : undefined;
    if (cm) checked.push(`${label(cm)}: data.config.yaml`);
  }
  return { checked, problems: [...set.readProblems, ...configProblems(set, { requireFiles: false })] };
}

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

interface CliOptions {
  configDir: string;
  knativeDir: string;
  root: string;
}

function parseArgv(argv: readonly string[], io: CliIo): CliOptions | number {
  const cmd = new Command('validate-config')
    .description('check every function config file (config/ and the ConfigMaps in knative/)')
    .option('--config-dir <dir>', 'the embedded landscape config folder', 'config')
    .option('--knative-dir <dir>', 'the Knative manifests folder', 'knative')
    .option('--root <dir>', 'the checkout (functions/ is read from here)', '.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  try {
    return cmd.parse([...argv]).opts<CliOptions>();
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    throw err;
  }
}

/** Runs the command; resolves the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const o = parseArgv(argv, io);
  if (typeof o === 'number') return o;
  const { checked, problems } = await validateConfigs({
    root: o.root,
    configDir: o.configDir,
    knativeDir: o.knativeDir,
  });
  for (const p of problems) io.err(p);
  const summary = `validate-config: ${checked.length} config file(s) checked, ${problems.length} problem(s)`;
  if (problems.length > 0) {
    io.err(summary);
    return 1;
  }
  for (const c of checked) io.out(`ok  ${c}`);
  io.out(summary);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv, { out: (l) => console.log(l), err: (l) => console.error(l) }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`validate-config: ${String(err)}`);
      process.exitCode = 2;
    },
  );
}
