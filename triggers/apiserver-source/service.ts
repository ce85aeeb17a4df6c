/**
 * The ApiServerSources of a folder (or given) as one running set: each one started in turn
 * (./source.ts), `ready` once every one has listed, stopped together. What the embedded
 * landscape and the event service (triggers/plane) run.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
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
