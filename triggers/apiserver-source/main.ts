/**
 * The source as a small always-on service (Google Cloud Functions has no broker): reads the
 * ApiServerSource manifests in a folder (recursively, `*.yaml`/`*.yml`, other kinds skipped),
 * watches the cluster of a kubeconfig, posts to each source's sink. `startService`/`stop` are what
 * the embedded landscape calls; run as a script it reads its flags and stops on SIGINT/SIGTERM.
 *
 *   tsx triggers/apiserver-source/main.ts --manifests knative/ --kubeconfig ~/.kube/config
 *
 * With `--function-url` it is the whole event service of a Cloud Functions deployment: it also
 * runs the Brokers and Triggers of the folder and routes to the function URLs (routed.ts); its
 * ingress (`--host`, `--port` or $PORT) is the functions' K_SINK. `LANDSCAPE_FUNCTION_TOKEN`, when
 * set, is sent as a bearer token to the functions; `LANDSCAPE_INGRESS_TOKEN`, when set, is the
 * bearer token the ingress requires (give it to the functions as K_SINK_TOKEN).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { Command } from 'commander';
import { kubeConfigFromFile } from '../../shared/kube/index.js';
import { createLogger } from '../../shared/log/index.js';
import type { Logger } from '../../shared/log/index.js';
import { ManifestError, sourceSpecsFromYaml } from './manifest.js';
import { startRoutedService } from './routed.js';
import { startApiServerSource } from './source.js';
import type { ApiServerSourceOptions, RunningSource, SinkResolver } from './source.js';
import type { SourceSpec } from './types.js';

export interface ServiceOptions {
  /** Folder of manifests (searched recursively); ignored when `specs` is given. */
  manifestDir?: string;
  /** The sources, already read (the embedded landscape reads every knative/ folder itself). */
  specs?: readonly SourceSpec[];
  /** A kubeconfig file, or a KubeConfig built by the caller. */
  kubeconfigPath?: string;
  kubeConfig?: KubeConfig;
  logger?: Logger;
  resolveSink?: SinkResolver;
  /** Passed to every source (tests: sleep, now, newId, fetch, reflector timings). */
  sourceOptions?: Partial<Omit<ApiServerSourceOptions, 'spec' | 'kubeConfig' | 'logger' | 'resolveSink'>>;
}

export interface Service {
  readonly sources: readonly RunningSource[];
  /** Every source has listed its resources. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/** Every ApiServerSource under a folder; a bad manifest fails with every problem of every file. */
export async function loadSourceSpecs(dir: string): Promise<SourceSpec[]> {
  const entries = await readdir(dir, { recursive: true });
  const files = entries.filter((f) => /\.ya?ml$/.test(f)).sort();
  const specs: SourceSpec[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const full = path.join(dir, file);
    try {
      specs.push(...sourceSpecsFromYaml(await readFile(full, 'utf8'), full));
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new ManifestError(dir, problems);
  return specs;
}

function kubeConfigOf(o: ServiceOptions): KubeConfig {
  if (o.kubeConfig) return o.kubeConfig;
  if (o.kubeconfigPath) return kubeConfigFromFile(o.kubeconfigPath);
  throw new Error('startService: kubeconfigPath or kubeConfig is required');
}

export async function startService(o: ServiceOptions): Promise<Service> {
  const logger = o.logger ?? createLogger({ name: 'apiserver-source' });
  const kubeConfig = kubeConfigOf(o);
  const specs = o.specs ?? (o.manifestDir !== undefined ? await loadSourceSpecs(o.manifestDir) : []);
  const sources: RunningSource[] = [];
  try {
    for (const spec of specs) {
      sources.push(
        await startApiServerSource({
          ...o.sourceOptions,
          spec,
          kubeConfig,
          logger,
          resolveSink: o.resolveSink,
        }),
      );
      logger.info('source started', { source: spec.id, mode: spec.mode, resources: spec.resources.length });
    }
  } catch (err) {
    await Promise.all(sources.map((s) => s.stop()));
    throw err;
  }
  return {
    sources,
    ready: Promise.all(sources.map((s) => s.ready)).then(() => undefined),
    stop: async () => {
      await Promise.all(sources.map((s) => s.stop()));
    },
  };
}

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
  return startRoutedService({
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
