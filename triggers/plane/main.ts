/**
 * The event service as a script (Google Cloud Functions has no broker; scripts/event-service
 * bundles it): with `--function-url` the whole event plane of a folder of manifests
 * (./event-service.ts: its ApiServerSources, Brokers, Triggers and resync PingSources) routing to
 * the function URLs; its ingress (`--host`, `--port` or $PORT) is the functions' K_SINK.
 * `LANDSCAPE_FUNCTION_TOKEN`, when set, is sent as a bearer token to the functions;
 * `LANDSCAPE_INGRESS_TOKEN`, when set, is the bearer token the ingress requires (give it to the
 * functions as K_SINK_TOKEN). Without `--function-url` only the ApiServerSources run, posting to
 * their sinks. Stops on SIGINT/SIGTERM.
 *
 *   tsx triggers/plane/main.ts --manifests knative/ --kubeconfig ~/.kube/config
 */
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { kubeConfigFromFile } from '../../shared/kube/index.js';
import { createLogger } from '../../shared/log/index.js';
import { startService } from '../apiserver-source/service.js';
import { startEventService } from './event-service.js';

interface Flags {
  manifests: string;
  kubeconfig?: string;
  functionUrl?: string;
  host: string;
  port?: number;
  stateDir?: string;
}

function flags(argv: readonly string[], env: NodeJS.ProcessEnv): Flags {
  const cmd = new Command('apiserver-source')
    .requiredOption(
      '--manifests <dir>',
      'folder of ApiServerSource (and, with --function-url, Broker and Trigger) manifests',
    )
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG)')
    .option(
      '--function-url <template>',
      'route by the Triggers of --manifests to function URLs, e.g. https://europe-west1-p.cloudfunctions.net/{name}',
    )
    .option('--host <address>', 'ingress address with --function-url', '127.0.0.1')
    .option('--port <port>', 'ingress port with --function-url (default: $PORT, else a free one)', (v) =>
      Number(v),
    )
    .option('--state-dir <dir>', 'keep dead letters and broker.json here (npm run dlq)')
    .parse([...argv]);
  const opts = cmd.opts<Flags>();
  const port = opts.port ?? (env.PORT ? Number(env.PORT) : undefined);
  return { ...opts, kubeconfig: opts.kubeconfig ?? env.KUBECONFIG, ...(port !== undefined ? { port } : {}) };
}

async function startFromFlags(f: Flags, env: NodeJS.ProcessEnv): Promise<{ stop(): Promise<void> }> {
  if (f.functionUrl === undefined) {
    return startService({
      manifestDir: f.manifests,
      kubeconfigPath: f.kubeconfig,
    });
  }
  if (!f.kubeconfig) throw new Error('--kubeconfig (or $KUBECONFIG) is required');
  return startEventService({
    manifestDir: f.manifests,
    kubeConfig: kubeConfigFromFile(f.kubeconfig),
    functionUrl: f.functionUrl,
    host: f.host,
    port: f.port,
    stateDir: f.stateDir,
    authToken: env.LANDSCAPE_FUNCTION_TOKEN,
    ...(env.LANDSCAPE_INGRESS_TOKEN ? { ingressToken: env.LANDSCAPE_INGRESS_TOKEN } : {}),
    logger: createLogger({ name: 'apiserver-source' }),
  });
}

/** The script entry: flags, then run until a signal. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const service = await startFromFlags(flags(argv, env), env);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await service.stop();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv, process.env).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
