/**
 * `npm start`: the embedded landscape on this machine. Starts the clusters, writes their
 * kubeconfigs, prints how to reach them, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { startLandscape, type Landscape, type LandscapeOptions } from './landscape.js';

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

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface CliOptions {
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
}

/** Parses the command line into landscape options (exits with commander's message on bad input). */
function parseOptions(argv: string[]): LandscapeOptions {
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
    .parse(argv);
  const o = program.opts<CliOptions>();
  const clusters = [...new Set([...(o.defaultClusters ? ['shoot-1'] : []), ...o.cluster])];
  const bad = clusters.find((c) => !NAME.test(c));
  if (bad) program.error(`error: cluster name "${bad}" must be a lowercase DNS label`);
  return {
    stateDir: resolve(o.stateDir),
    clusters,
    port: o.port,
    host: o.host,
    dataDir: o.dataDir ? resolve(o.dataDir) : undefined,
    rbac: o.rbac,
    workloads: o.simulateWorkloads ? { delayMs: o.workloadDelay, createPods: o.simulatePods } : undefined,
  };
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

function printUsage(l: Landscape): void {
  const lines = ['The embedded landscape is running.', ''];
  for (const [name, c] of Object.entries(l.control.clusters)) {
    lines.push(`  ${name.padEnd(12)} ${c.url}   kubeconfig: ${c.kubeconfig}`);
  }
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
  const landscape = await startLandscape(parseOptions(process.argv));
  printUsage(landscape);
  stopOnSignals(landscape);
}

main().catch((e: unknown) => {
  console.error(`npm start failed: ${(e as Error).message}`);
  process.exit(1);
});
