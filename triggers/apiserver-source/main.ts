/**
 * The source as a small always-on service (Google Cloud Functions has no broker): reads the
 * ApiServerSource manifests in a folder (recursively, `*.yaml`/`*.yml`, other kinds skipped),
 * watches the cluster of a kubeconfig, posts to each source's sink. `startService`/`stop` are what
 * the embedded landscape calls; run as a script it reads its flags and stops on SIGINT/SIGTERM.
 *
 *   tsx triggers/apiserver-source/main.ts --manifests knative/ --kubeconfig ~/.kube/config
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
  resyncIntervalMs?: number;
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
          resyncIntervalMs: o.resyncIntervalMs ?? o.sourceOptions?.resyncIntervalMs,
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

/** The script entry: flags, then run until a signal. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const cmd = new Command('apiserver-source')
    .requiredOption('--manifests <dir>', 'folder of ApiServerSource manifests')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG)')
    .option('--resync-interval <ms>', 'dev.landscape.resync interval in ms (0: off)', (v) => Number(v))
    .parse([...argv]);
  const opts = cmd.opts<{ manifests: string; kubeconfig?: string; resyncInterval?: number }>();
  const service = await startService({
    manifestDir: opts.manifests,
    kubeconfigPath: opts.kubeconfig ?? env.KUBECONFIG,
    resyncIntervalMs: opts.resyncInterval,
  });
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
