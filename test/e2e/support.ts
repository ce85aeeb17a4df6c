/**
 * End-to-end support: the embedded landscape (`npm start`, i.e. `node scripts/launch.mjs local/main.ts`) as a child
 * process in a fresh state directory, and the real kubectl against it.
 *
 * Every kubectl call gets `--kubeconfig <dir>/kubeconfig` (or another cluster's) and a
 * `--cache-dir` of its own suite, and a HOME inside the state directory, so a stale discovery
 * or OpenAPI cache from an earlier run can never hide a bug. One landscape per test file:
 * `const l = useLandscape();` registers beforeAll/afterAll; afterAll stops it with SIGINT
 * (what Ctrl-C sends) and asserts that it exits 0.
 *
 * Every limit here and in the e2e tests is a base figure scaled by E2E_TIMEOUT_SCALE (default 3,
 * test/support/timing.ts); tests wait on conditions (`until`), never on elapsed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jest } from '@jest/globals';
import { scaled, sleep } from '../support/timing.js';

export { scaled, scaledSeconds, sleep, until } from '../support/timing.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * `node scripts/launch.mjs <entry>`, what `npm start` and `npm run landscape` run: the entry's
 * cached bundle in this node process (no `tsx` parent relaying signals, no per-start compile).
 */
const NODE = process.execPath;
const LAUNCH = ['scripts/launch.mjs'];
const kubectlBinary = (): string => process.env.KUBECTL ?? 'kubectl';
/**
 * Base limits for a quiet machine, scaled by E2E_TIMEOUT_SCALE (test/support/timing.ts) where
 * they are used. The first landscape of a run bundles every function (later ones take the
 * bundles from the cache); a stop finishes the functions' in-flight work first.
 */
const START_DEADLINE_MS = 90_000;
const STOP_DEADLINE_MS = 15_000;
const COMMAND_TIMEOUT_MS = 30_000;
/**
 * The default limit of an e2e test without one of its own (jest's testTimeout, scaled): above
 * the 20–30 s base of one `until`, so a failing wait reports what it waited for.
 */
export const TEST_TIMEOUT_MS = 60_000;

export interface CommandResult {
  /** The command line, for failure messages. */
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (stdin is closed either way). */
  input?: string;
  /** A kubeconfig other than the main cluster's. */
  kubeconfig?: string;
  timeoutMs?: number;
}

/** A kubectl left running (e.g. `get -w`). */
export interface Background {
  /** stdout so far. */
  stdout(): string;
  /** Resolves when stdout (or stderr) matches, rejects with the output when it does not in time. */
  waitFor(pattern: RegExp, opts?: { timeoutMs?: number; stream?: 'stdout' | 'stderr' }): Promise<string>;
  /** Whether it is still running. */
  running(): boolean;
  /** Resolves when it exits by itself; rejects with its output when it does not in time. */
  exit(timeoutMs?: number): Promise<CommandResult>;
  /** Terminates it (if still running) and returns what it printed. */
  stop(): Promise<CommandResult>;
}

export interface StopResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

export interface Landscape {
  stateDir: string;
  /** `<stateDir>/kubeconfig` (main) or `<stateDir>/<name>.kubeconfig`. */
  kubeconfig(cluster?: string): string;
  kubectl(args: string[], opts?: KubectlOptions): Promise<CommandResult>;
  /** kubectl that must exit 0 (fails with its command line and output otherwise). */
  kubectlOk(args: string[], opts?: KubectlOptions): Promise<CommandResult>;
  kubectlInBackground(args: string[], opts?: KubectlOptions): Background;
  /** `kubectl get <args> -o json`, parsed (must succeed). */
  getJson(args: string[], opts?: KubectlOptions): Promise<any>;
  /** Writes a manifest and runs `kubectl create -f` on it (must succeed). */
  create(file: string, text: string, opts?: KubectlOptions): Promise<CommandResult>;
  /** `npm run landscape -- <args>` against this landscape. */
  cli(args: string[]): Promise<CommandResult>;
  /** Writes a manifest into the state directory and returns its path. */
  manifest(name: string, text: string): Promise<string>;
  /** The landscape's stdout and stderr so far. */
  output(): string;
  /** SIGINT to its process group (what Ctrl-C does); idempotent. The state directory stays. */
  stop(): Promise<StopResult>;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  return { out: () => out, err: () => err };
}

function exited(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** How the child exited, or undefined when it did not within ms (the timer is cleared either way). */
async function exitWithin(child: ChildProcess, ms: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([exited(child), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command to its end (killed after timeoutMs), never throws for a non-zero exit. */
export async function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<CommandResult> {
  const child = spawn(cmd, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const io = collect(child);
  child.stdin.on('error', () => undefined);
  child.stdin.end(opts.input ?? '');
  const timeoutMs = opts.timeoutMs ?? scaled(COMMAND_TIMEOUT_MS);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  let failure = '';
  const exit = await new Promise<Exit>((resolve) => {
    child.once('error', (e) => {
      failure = `\n[${cmd} could not be started: ${e.message}]`;
      resolve({ code: 127, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  if (exit.signal === 'SIGKILL') failure = `\n[killed after ${timeoutMs} ms]`;
  return {
    command: [cmd, ...args].join(' '),
    code: exit.code ?? -1,
    stdout: io.out(),
    stderr: io.err() + failure,
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

async function waitForControlFile(
  child: ChildProcess,
  stateDir: string,
  output: () => string,
): Promise<void> {
  const limit = scaled(START_DEADLINE_MS);
  const deadline = Date.now() + limit;
  let exit: Exit | undefined;
  void exited(child).then((e) => (exit = e));
  while (!existsSync(join(stateDir, 'landscape.json'))) {
    if (exit)
      throw new Error(
        `the landscape exited (code ${exit.code}, signal ${exit.signal}) before writing landscape.json:\n${output()}`,
      );
    if (Date.now() > deadline) {
      killGroup(child, 'SIGKILL');
      throw new Error(`the landscape did not write landscape.json within ${limit} ms:\n${output()}`);
    }
    await sleep(50);
  }
}

function background(child: ChildProcess, command: string): Background {
  const io = collect(child);
  child.stdin?.end();
  return {
    stdout: io.out,
    async waitFor(pattern, { timeoutMs = scaled(10_000), stream = 'stdout' } = {}) {
      const text = stream === 'stdout' ? io.out : io.err;
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(text())) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(
            `${command}\nno ${String(pattern)} in its ${stream} (exit ${child.exitCode}):\n--- stdout:\n${io.out()}\n--- stderr:\n${io.err()}`,
          );
        }
        await sleep(25);
      }
      return text();
    },
    running: () => child.exitCode === null && child.signalCode === null,
    async exit(timeoutMs = scaled(10_000)) {
      const exit = await exitWithin(child, timeoutMs);
      if (!exit)
        throw new Error(`${command}\ndid not exit within ${timeoutMs} ms:\n${io.out()}\n${io.err()}`);
      return { command, code: exit.code ?? -1, stdout: io.out(), stderr: io.err() };
    },
    async stop() {
      child.kill('SIGTERM');
      const exit = await exited(child);
      return { command, code: exit.code ?? -1, stdout: io.out(), stderr: io.err() };
    },
  };
}

export interface StartOptions {
  /** Run the functions, broker and sources too (default false: `--no-functions`, the API server alone). */
  functions?: boolean;
  /** Extra environment of `npm start` (e.g. REDIS_URL). */
  env?: Record<string, string>;
  /**
   * With functions: the PingSources' sub-minute `landscape.dev/embedded-schedule`
   * (`--embedded-schedules`, the default here: tests wait on ticks) or their own one-minute
   * `spec.schedule` ('spec', what `npm start` runs by default).
   */
  schedules?: 'embedded' | 'spec';
}

/** Starts `node --import tsx local/main.ts --state-dir <fresh temp dir> ...args` and waits for landscape.json. */
export async function startLandscape(args: string[] = [], options: StartOptions = {}): Promise<Landscape> {
  const stateDir = await mkdtemp(join(tmpdir(), 'landscape-e2e-'));
  const home = join(stateDir, 'home');
  const cacheDir = join(stateDir, 'kubectl-cache');
  await mkdir(join(stateDir, 'manifests'), { recursive: true });
  await mkdir(home, { recursive: true });
  const schedules = options.schedules === 'spec' ? [] : ['--embedded-schedules'];
  const runtime = options.functions ? schedules : ['--no-functions'];
  const child = spawn(NODE, [...LAUNCH, 'local/main.ts', '--state-dir', stateDir, ...runtime, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = collect(child);
  const output = (): string => io.out() + io.err();
  const safety = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', safety);
  await waitForControlFile(child, stateDir, output);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KUBECONFIG: '' };
  const KUBECTL = kubectlBinary();
  const kubeconfig = (cluster = 'main'): string =>
    join(stateDir, cluster === 'main' ? 'kubeconfig' : `${cluster}.kubeconfig`);
  const kubectlArgs = (args: string[], opts: KubectlOptions): string[] => [
    '--kubeconfig',
    opts.kubeconfig ?? kubeconfig(),
    '--cache-dir',
    cacheDir,
    ...args,
  ];
  let stopped: Promise<StopResult> | undefined;
  const kubectlOk = async (args: string[], opts: KubectlOptions = {}): Promise<CommandResult> =>
    ok(await run(KUBECTL, kubectlArgs(args, opts), { env, input: opts.input, timeoutMs: opts.timeoutMs }));
  const manifest = async (name: string, text: string): Promise<string> => {
    const path = join(stateDir, 'manifests', name);
    await writeFile(path, text);
    return path;
  };
  return {
    stateDir,
    kubeconfig,
    output,
    kubectl: (args, opts = {}) =>
      run(KUBECTL, kubectlArgs(args, opts), { env, input: opts.input, timeoutMs: opts.timeoutMs }),
    kubectlOk,
    getJson: async (args, opts) => {
      const parsed: unknown = JSON.parse((await kubectlOk(['get', ...args, '-o', 'json'], opts)).stdout);
      return parsed;
    },
    create: async (file, text, opts) => kubectlOk(['create', '-f', await manifest(file, text)], opts),
    kubectlInBackground: (args, opts = {}) => {
      const argv = kubectlArgs(args, opts);
      return background(
        spawn(KUBECTL, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] }),
        [KUBECTL, ...argv].join(' '),
      );
    },
    cli: (args) =>
      run(NODE, [...LAUNCH, 'local/cli.ts', '--state-dir', stateDir, ...args], { cwd: REPO_ROOT }),
    manifest,
    stop() {
      stopped ??= (async () => {
        killGroup(child, 'SIGINT');
        const limit = scaled(STOP_DEADLINE_MS);
        const exit = await exitWithin(child, limit);
        if (!exit) killGroup(child, 'SIGKILL');
        process.removeListener('exit', safety);
        const result: StopResult = exit
          ? { ...exit, output: output() }
          : {
              code: null,
              signal: null,
              output: `${output()}\n[did not stop within ${limit} ms of SIGINT]`,
            };
        // a stop that failed says why where CI shows it (the tests only assert the code)
        if (result.code !== 0)
          process.stderr.write(
            `landscape in ${stateDir} stopped with code ${String(result.code)}; its last output:\n${result.output.slice(-4000)}\n`,
          );
        return result;
      })();
      return stopped;
    },
  };
}

/** The limit of a beforeAll that starts one landscape (scaled). */
export function startTimeout(): number {
  return scaled(START_DEADLINE_MS + 5_000);
}

/** The limit of an afterAll that stops one landscape (scaled). */
export function stopTimeout(): number {
  return scaled(STOP_DEADLINE_MS + 5_000);
}

/** Sets the calling test file's default test limit to the scaled TEST_TIMEOUT_MS (call at its top level). */
export function useTestTimeout(): void {
  jest.setTimeout(scaled(TEST_TIMEOUT_MS));
}

/**
 * One landscape for the calling test file: started in beforeAll, stopped with SIGINT in
 * afterAll, which fails unless it exits 0 ("stops cleanly on Ctrl-C").
 */
export function useLandscape(args: string[] = [], options: StartOptions = {}): () => Landscape {
  let landscape: Landscape | undefined;
  useTestTimeout();
  beforeAll(async () => {
    landscape = await startLandscape(args, options);
  }, startTimeout());
  afterAll(async () => {
    if (!landscape) return;
    const r = await landscape.stop();
    if (r.code === 0) await rm(landscape.stateDir, { recursive: true, force: true });
    if (r.code !== 0)
      throw new Error(
        `the landscape did not exit 0 on SIGINT (code ${r.code}, signal ${r.signal}):\n${r.output}`,
      );
  }, stopTimeout());
  return () => {
    if (!landscape) throw new Error('the landscape is not running (beforeAll failed)');
    return landscape;
  };
}

/** Returns the result when the command exited 0, else fails with its command line and output. */
export function ok(r: CommandResult): CommandResult {
  if (r.code !== 0)
    throw new Error(`${r.command}\nexited ${r.code}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`);
  return r;
}

/** Exit code and both streams (without the command line), to compare whole with toEqual. */
export function outcome(r: CommandResult): { code: number; stdout: string; stderr: string } {
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Reads a JSON file (e.g. landscape.json). */
export async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

/**
 * Parses kubectl's aligned table output (header row first) into rows keyed by header,
 * cutting at the header's column offsets (so empty cells, e.g. SHORTNAMES, stay empty).
 */
export function parseTable(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const header = lines[0];
  const columns = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index }));
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    columns.forEach((c, i) => {
      const end = i + 1 < columns.length ? columns[i + 1].start : undefined;
      row[c.name] = line.slice(c.start, end).trim();
    });
    return row;
  });
}
