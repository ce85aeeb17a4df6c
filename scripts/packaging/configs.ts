/**
 * Config checks (pure, given each function's `loadConfig`): every file of `config/` belongs to a
 * function and its `loadConfig` accepts it with the environment the embedded landscape provides;
 * the `config.yaml` of each function's ConfigMap in `knative/` is accepted with the environment
 * its Knative Service gets (values from Secrets as placeholders, and K_SINK only when a
 * SinkBinding selects the Service).
 * `npm run validate-config` and the packaging test both run these.
 */
import { posix } from 'node:path';
import {
  array,
  docsOf,
  EMBEDDED_ENV,
  envOf,
  label,
  PLATFORM_PLACEHOLDERS,
  podSpec,
  record,
  refOf,
  serviceEnv,
  serviceOf,
  text,
  container,
  type ConfigLoader,
  type Env,
  type FunctionModule,
  type ManifestDoc,
  type PackagingSet,
} from './model.js';
import { isSinkBound } from './platform.js';

export interface ConfigMount {
  /** The ConfigMap the Service mounts at the folder of CONFIG_FILE. */
  configMapName: string;
  /** The key holding the file: the file name of CONFIG_FILE. */
  key: string;
  /** The ConfigMap document, when it is in the Service's family and namespace. */
  configMap?: ManifestDoc;
}

function configFileEnv(service: ManifestDoc): string | undefined {
  return envOf(service).find((e) => e.name === 'CONFIG_FILE')?.value;
}

function mountedConfigMap(service: ManifestDoc, dir: string): { volume?: string; configMap?: string } {
  const mount = array(container(service)['volumeMounts'])
    .map(record)
    .find((m) => text(m['mountPath'])?.replace(/\/+$/, '') === dir);
  const volume = text(mount?.['name']);
  if (volume === undefined) return {};
  const v = array(podSpec(service)['volumes'])
    .map(record)
    .find((x) => text(x['name']) === volume);
  return { volume, configMap: text(record(v?.['configMap'])['name']) };
}

function findConfigMap(
  set: Pick<PackagingSet, 'manifests'>,
  service: ManifestDoc,
  name: string,
): ManifestDoc | undefined {
  const ns = refOf(service).namespace;
  return docsOf(set, 'ConfigMap').find(
    (d) => d.family === service.family && refOf(d).name === name && refOf(d).namespace === ns,
  );
}

/** Where a function's Service gets its config file from, with every problem of that wiring. */
export function configMountOf(
  set: Pick<PackagingSet, 'manifests'>,
  service: ManifestDoc,
): { mount?: ConfigMount; problems: string[] } {
  const where = label(service);
  const file = configFileEnv(service);
  if (file === undefined || !file.startsWith('/'))
    return { problems: [`${where}: no CONFIG_FILE env with an absolute path (the mounted config file)`] };
  const dir = posix.dirname(file);
  const key = posix.basename(file);
  const { volume, configMap } = mountedConfigMap(service, dir);
  if (volume === undefined)
    return { problems: [`${where}: no volumeMount at ${dir} (the folder of CONFIG_FILE ${file})`] };
  if (configMap === undefined)
    return { problems: [`${where}: volume "${volume}" mounted at ${dir} is not a ConfigMap volume`] };
  const problems: string[] = [];
  const expected = `${refOf(service).name}-config`;
  if (configMap !== expected)
    problems.push(`${where}: mounts ConfigMap "${configMap}"; expected "${expected}"`);
  const doc = findConfigMap(set, service, configMap);
  if (doc === undefined)
    problems.push(
      `${where}: ConfigMap ${refOf(service).namespace ?? ''}/${configMap} is not in knative/${service.family}/`,
    );
  else if (text(record(doc.object['data'])[key]) === undefined)
    problems.push(`${label(doc)}: no data key "${key}" (the file name of CONFIG_FILE ${file})`);
  return { mount: { configMapName: configMap, key, ...(doc ? { configMap: doc } : {}) }, problems };
}

function run(loader: ConfigLoader, text: string | undefined, env: Env, where: string): string[] {
  try {
    const r = loader(text, env);
    return r.ok ? [] : r.problems.map((p) => `${where}: ${p}`);
  } catch (err) {
    return [`${where}: loadConfig threw: ${String(err)}`];
  }
}

export interface ConfigCheckOptions {
  /** A function without `config/<name>.yaml` is a problem (the packaging test); otherwise its defaults are checked. */
  requireFiles: boolean;
}

function fileProblems(
  set: PackagingSet,
  fn: FunctionModule,
  loader: ConfigLoader,
  opts: ConfigCheckOptions,
): string[] {
  const file = set.configFiles.find((f) => f.name === fn.name);
  if (file !== undefined) return run(loader, file.text, EMBEDDED_ENV, file.file);
  const path = `${set.configDir}/${fn.name}.yaml`;
  if (opts.requireFiles)
    return [`${path}: missing (the embedded landscape's config of functions/${fn.name})`];
  return run(loader, undefined, EMBEDDED_ENV, `${path} (absent: the defaults)`);
}

function configMapProblems(set: PackagingSet, fn: FunctionModule, loader: ConfigLoader): string[] {
  const service = serviceOf(set, fn.name);
  if (service === undefined) return [];
  const { mount } = configMountOf(set, service);
  const data = mount?.configMap ? text(record(mount.configMap.object['data'])[mount.key]) : undefined;
  if (mount?.configMap === undefined || data === undefined) return [];
  const env = {
    ...serviceEnv(service),
    ...(isSinkBound(set, service) ? { K_SINK: PLATFORM_PLACEHOLDERS['K_SINK'] } : {}),
  };
  return run(loader, data, env, `${label(mount.configMap)}: data.${mount.key}`);
}

/** Every problem of the config files and ConfigMaps, each with its file. */
export function configProblems(set: PackagingSet, opts: ConfigCheckOptions): string[] {
  const names = new Set(set.functions.map((f) => f.name));
  const problems = set.configFiles
    .filter((f) => !names.has(f.name))
    .map((f) => `${f.file}: no function "${f.name}" (functions/${f.name}/handler.ts) reads it`);
  for (const fn of set.functions) {
    if (fn.loadConfig === undefined) {
      problems.push(`functions/${fn.name}/config.ts: no loadConfig(text, env) export`);
      continue;
    }
    problems.push(
      ...fileProblems(set, fn, fn.loadConfig, opts),
      ...configMapProblems(set, fn, fn.loadConfig),
    );
  }
  return problems;
}
