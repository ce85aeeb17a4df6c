/**
 * `npm start`: the embedded landscape on this machine. Starts the clusters, writes their
 * kubeconfigs, prints how to reach them, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { startLandscape, type Landscape } from './landscape.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
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

async function main(): Promise<void> {
  const program = new Command('npm start --')
    .description(
      'Runs the embedded landscape: a Kubernetes API server with the product CRDs, and other clusters (e.g. shoots).',
    )
    .option('--state-dir <dir>', 'where kubeconfigs, PKI and the control file go', '.local')
    .option('--cluster <name>', 'another cluster besides main (repeatable or comma-separated)', collect, [])
    .option('--no-default-clusters', 'do not add the default shoot cluster "shoot-1"')
    .option('--port <port>', 'port of the main cluster (0 = any free port)', port, 0)
    .option('--host <host>', 'address to listen on (loopback only is recommended)', '127.0.0.1')
    .parse(process.argv);
  const o = program.opts<{
    stateDir: string;
    cluster: string[];
    defaultClusters: boolean;
    port: number;
    host: string;
  }>();
  const clusters = [...(o.defaultClusters ? ['shoot-1'] : []), ...o.cluster];
  const bad = clusters.find((c) => !NAME.test(c));
  if (bad) program.error(`error: cluster name "${bad}" must be a lowercase DNS label`);
  const stateDir = resolve(o.stateDir);
  const landscape: Landscape = await startLandscape({
    stateDir,
    clusters: [...new Set(clusters)],
    port: o.port,
    host: o.host,
  });
  printUsage(landscape);
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
  for (const [name, c] of Object.entries(l.control.clusters))
    lines.push(`  ${name.padEnd(12)} ${c.url}   kubeconfig: ${c.kubeconfig}`);
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
    '',
    'Press Ctrl-C to stop.',
  );
  console.log(lines.join('\n'));
}

main().catch((e: unknown) => {
  console.error(`npm start failed: ${(e as Error).message}`);
  process.exit(1);
});
