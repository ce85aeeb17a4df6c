/**
 * `npm start`: the embedded landscape on this machine. Starts the clusters, writes their
 * kubeconfigs, prints how to reach them, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import { parseGoDuration } from '@landscape/apimachinery';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fixtureOptions, fixtureSettings, type FixtureCliOptions } from './gardenlet/index.js';
import { startLandscape, type Landscape, type LandscapeOptions } from './landscape.js';
import { renderStatus } from './knative/status.js';

function integer(max: number, what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max)
      throw new InvalidArgumentError(`must be ${what} (0-${max})`);
    return n;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

function duration(value: string): number {
  try {
    return /^\d+$/.test(value) ? Number(value) : parseGoDuration(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface CliOptions extends FixtureCliOptions {
  stateDir: string;
  cluster: string[];
  defaultClusters: boolean;
  port: number;
  host: string;
  simulateWorkloads: boolean;
  workloadDelay: number;
  simulatePods: boolean;
  dataDir?: string;
  rbac: boolean;
  auditLog?: string;
  functions: boolean;
  knativeDir: string[];
  functionsDir: string[];
  configDir: string;
  maxScale?: number;
  idleWindow?: number;
  resyncInterval?: number;
  embeddedSchedules: boolean;
  functionLogs: boolean;
  statusInterval: number;
  kubeconfig?: string;
}

/** `npm start` options of the serverless runtime (functions, broker, sources). */
function runtimeOptions(program: Command): Command {
  return program
    .option('--no-functions', 'run the API server alone (no functions, broker or sources)')
    .option(
      '--knative-dir <dir>',
      'folder of Knative manifests (repeatable; default: the folders of knative/ but knative/optional/)',
      collect,
      [],
    )
    .option(
      '--functions-dir <dir>',
      'folder of function folders (repeatable; default functions)',
      collect,
      [],
    )
    .option('--config-dir <dir>', "the functions' config files (<function>.yaml)", 'config')
    .option('--max-scale <n>', "replace every Service's max-scale", integer(1000, 'a replica count'))
    .option(
      '--idle-window <duration>',
      "idle time before a replica stops (e.g. 5s; default: each Service's window)",
      duration,
    )
    .option(
      '--resync-interval <duration>',
      "the resync PingSources' interval (label landscape.dev/resync; e.g. 10s; default: their schedule)",
      duration,
    )
    .option(
      '--embedded-schedules',
      "run PingSources on their landscape.dev/embedded-schedule (sub-minute ticks: tests, the drill) instead of their spec.schedule (one-minute granularity, as Knative's)",
      false,
    )
    .option(
      '--function-logs',
      'print function logs on stdout too (always in <state-dir>/logs/<function>.log)',
      false,
    )
    .option('--no-function-logs', 'function logs in <state-dir>/logs only (the default)')
    .option(
      '--status-interval <duration>',
      'print the functions table this often when it changed (0: never)',
      duration,
      30_000,
    )
    .option(
      '--kubeconfig <file>',
      'run the functions against this cluster instead of the embedded API server',
    );
}

/** Parses the command line into landscape options (exits with commander's message on bad input). */
function parseOptions(argv: string[]): { landscape: LandscapeOptions; statusIntervalMs: number } {
  const program = new Command('npm start --')
    .description(
      'Runs the embedded landscape: a Kubernetes API server with the product CRDs, and other clusters (e.g. shoots).',
    )
    .option('--state-dir <dir>', 'where kubeconfigs, PKI and the control file go', '.local')
    .option('--cluster <name>', 'another cluster besides main (repeatable or comma-separated)', collect, [])
    .option('--no-default-clusters', 'do not add the default shoot cluster "shoot-1"')
    .option(
      '--port <port>',
      'port of the main cluster (0 = any free port)',
      integer(65535, 'a port number'),
      0,
    )
    .option('--data-dir <dir>', "keep every cluster's objects in this directory across restarts")
    .option('--host <host>', 'address to listen on (loopback only is recommended)', '127.0.0.1')
    .option('--no-simulate-workloads', 'leave Deployment/StatefulSet status alone (no kwok-like simulation)')
    .option(
      '--workload-delay <ms>',
      'delay before a workload status follows its spec',
      integer(600_000, 'milliseconds'),
      500,
    )
    .option('--simulate-pods', 'also create Running pods for simulated workloads', false)
    .option('--rbac', 'enforce RBAC in every cluster (the kubeconfigs keep an admin token)', false)
    .option(
      '--audit-log <file>',
      'append an audit.k8s.io/v1 Event per API request to this file (JSON lines)',
    );
  fixtureOptions(runtimeOptions(program), duration).parse(argv);
  const o = program.opts<CliOptions>();
  const clusters = [...new Set([...(o.defaultClusters ? ['shoot-1'] : []), ...o.cluster])];
  const bad = clusters.find((c) => !NAME.test(c));
  if (bad) program.error(`error: cluster name "${bad}" must be a lowercase DNS label`);
  return { landscape: landscapeOptions(o, clusters), statusIntervalMs: o.statusInterval };
}

function landscapeOptions(o: CliOptions, clusters: string[]): LandscapeOptions {
  return {
    stateDir: resolve(o.stateDir),
    clusters,
    port: o.port,
    host: o.host,
    dataDir: o.dataDir ? resolve(o.dataDir) : undefined,
    rbac: o.rbac,
    ...(o.auditLog ? { auditLogPath: resolve(o.auditLog) } : {}),
    workloads: o.simulateWorkloads ? { delayMs: o.workloadDelay, createPods: o.simulatePods } : undefined,
    ...(o.kubeconfig ? { kubeconfig: resolve(o.kubeconfig) } : {}),
    fixtures: fixtureSettings(o, o.kubeconfig),
    ...(o.functions ? { runtime: runtimeSettings(o) } : {}),
  };
}

/** Opt-in manifests (functions that would fight a real component, e.g. seed-status vs gardenlet). */
const OPTIONAL_KNATIVE = 'optional';

/** Every family folder of knative/ but the opt-in one (`--knative-dir knative/optional` adds it). */
function defaultKnativeDirs(root = 'knative'): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== OPTIONAL_KNATIVE)
    .map((e) => join(root, e.name))
    .sort();
}

function runtimeSettings(o: CliOptions): NonNullable<LandscapeOptions['runtime']> {
  return {
    knativeDirs: (o.knativeDir.length > 0 ? o.knativeDir : defaultKnativeDirs()).map((d) => resolve(d)),
    functionsDirs: (o.functionsDir.length > 0 ? o.functionsDir : ['functions']).map((d) => resolve(d)),
    configDir: resolve(o.configDir),
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    overrides: {
      ...(o.maxScale !== undefined ? { maxScale: o.maxScale } : {}),
      ...(o.idleWindow !== undefined ? { idleMs: o.idleWindow } : {}),
    },
    ...(o.resyncInterval !== undefined ? { resyncIntervalMs: o.resyncInterval } : {}),
    embeddedSchedules: o.embeddedSchedules,
    echoLogs: o.functionLogs,
  };
}

/** Prints the functions table now, then every interval when it changed. */
function printStatus(l: Landscape, intervalMs: number): void {
  const runtime = l.runtime;
  if (!runtime || intervalMs <= 0) return;
  let last = '';
  const print = (): void => {
    runtime.status().then(
      (rows) => {
        const table = renderStatus(rows);
        if (table !== last) console.log(`\n${table}\n`);
        last = table;
      },
      () => undefined,
    );
  };
  print();
  setInterval(print, intervalMs).unref();
}

/** A line of what the start is doing, with the seconds since the process started. */
function progress(line: string): void {
  console.log(`[${process.uptime().toFixed(1).padStart(5)} s] ${line}`);
}

function stopOnSignals(landscape: Landscape): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the landscape...`);
    landscape.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('error while stopping:', e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function runtimeLines(l: Landscape, stateDir: string): string[] {
  const r = l.runtime;
  if (!r) return [];
  const rel = relative(process.cwd(), stateDir);
  const logs = join(rel === '' || rel.startsWith('..') ? stateDir : rel, 'logs', '<function>.log');
  const names = r.knative.services.map((s) => s.name).join(', ');
  return [
    '',
    `Functions (scale to zero, started on their first event): ${names || 'none'}`,
    `  broker ingress ${r.ingressUrl}   activator ${r.activatorUrl} (/status, /metrics)`,
    `  redis ${r.redisUrl}   logs ${logs} (--function-logs: on stdout too)   dead letters: npm run dlq -- list`,
  ];
}

function fixtureLines(l: Landscape): string[] {
  const f = l.fixtures;
  if (!f) return [];
  const where = l.api ? '' : ' AGAINST THE --kubeconfig CLUSTER';
  return [
    '',
    `Fixture controller${where} (plays gardenlet; --no-fixtures turns it off): Shoots bound to a seed reconciled after ${f.shootDelayMs} ms, Seeds ready after ${f.seedDelayMs} ms`,
  ];
}

function printUsage(l: Landscape, stateDir: string): void {
  const lines = ['The embedded landscape is running.', ''];
  for (const [name, c] of Object.entries(l.control.clusters)) {
    lines.push(`  ${name.padEnd(12)} ${c.url}   kubeconfig: ${c.kubeconfig}`);
  }
  lines.push(...runtimeLines(l, stateDir), ...fixtureLines(l));
  const main = l.control.clusters.main.kubeconfig;
  lines.push(
    '',
    'Use kubectl with it:',
    `  export KUBECONFIG=${main}`,
    '  kubectl api-resources',
    '  kubectl get namespaces',
    '',
  );
  lines.push(
    'Simulate an outage of one cluster:',
    '  npm run landscape -- stop-cluster shoot-1',
    '  npm run landscape -- start-cluster shoot-1',
  );
  lines.push('', 'Press Ctrl-C to stop.');
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv);
  const l = options.landscape;
  progress(
    `npm start: the embedded landscape in ${l.stateDir}${l.runtime ? ` with the functions of ${l.runtime.knativeDirs.length} knative/ folders` : ' (API server only)'}`,
  );
  const landscape = await startLandscape({ ...l, progress });
  progress(`ready`);
  printUsage(landscape, l.stateDir);
  printStatus(landscape, options.statusIntervalMs);
  stopOnSignals(landscape);
}

main().catch((e: unknown) => {
  console.error(`npm start failed: ${(e as Error).message}`);
  process.exit(1);
});
