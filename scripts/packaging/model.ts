/**
 * What the packaging checks look at, parsed (pure data): the functions (their handler module's
 * exports, Functions Framework registrations and `loadConfig`), every YAML document under
 * `knative/` with its family folder, the files of `config/`, `serverless.yml` and the Dockerfile.
 * ./repo.ts reads them from a checkout; the checks (./check.ts) are pure functions of this set.
 *
 * Conventions the checks hold the repository to:
 * - function `<name>` = folder `functions/<name>/` (with handler.ts) = Functions Framework name =
 *   Knative Service `<name>` = `serverless.yml` key `<name>`; the handler is also exported and
 *   registered under its camelCase name (`serverless.yml` `handler`);
 * - the Service runs `/app/functions/<name>/server.js` (what the Dockerfile copies from
 *   `npm run build`), mounts ConfigMap `<name>-config` at the folder of CONFIG_FILE, and has no
 *   downward API (a default Knative install refuses it: ./platform.ts);
 * - every document of `knative/<family>/` is labelled `landscape.dev/family: <family>` and
 *   `app.kubernetes.io/part-of: landscape-functions`; references resolve within the family or
 *   the shared `runtime` family (the Broker, the ticker, the dead-letter sink).
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** `loadConfig(text, env)` of `functions/<name>/config.ts`. */
export type ConfigLoader = (
  text: string | undefined,
  env: Env,
) => { ok: true } | { ok: false; problems: string[] };

export interface FunctionModule {
  name: string;
  /** The exports of `functions/<name>/handler.ts`. */
  handlerExports: Readonly<Record<string, unknown>>;
  /** Whether a Functions Framework function is registered under a name. */
  registered: (name: string) => boolean;
  /** `loadConfig` of `functions/<name>/config.ts`; undefined when there is none. */
  loadConfig?: ConfigLoader;
}

/** One YAML document (a mapping) under `knative/`. */
export interface ManifestDoc {
  /** The file, as messages name it (e.g. `knative/runtime/broker.yaml`). */
  file: string;
  /** The folder under `knative/` ('' for a file directly in it). */
  family: string;
  /** 1-based position in the file. */
  index: number;
  object: Readonly<Record<string, unknown>>;
}

export interface TextFile {
  /** As messages name it (e.g. `config/dead-letter.yaml`). */
  file: string;
  text: string;
}

export interface PackagingSet {
  functions: FunctionModule[];
  manifests: ManifestDoc[];
  /** Files that could not be read as expected (YAML syntax errors, non-mapping documents, imports). */
  readProblems: string[];
  /** `config/*.yaml`; `name` is the file name without the extension. */
  configFiles: (TextFile & { name: string })[];
  /** How messages name the config folder (`config`). */
  configDir: string;
  /** Parsed `serverless.yml`; undefined when there is none. */
  serverless?: { file: string; doc: unknown };
  dockerfile?: TextFile;
}

/** The family whose Broker, ticker and dead-letter sink every other family uses. */
export const RUNTIME_FAMILY = 'runtime';
export const PART_OF = 'landscape-functions';
export const LABEL_FAMILY = 'landscape.dev/family';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
export const LABEL_VISIBILITY = 'networking.knative.dev/visibility';
export const KNATIVE_SERVICE_API = 'serving.knative.dev/v1';
export const KPA_CLASS = 'kpa.autoscaling.knative.dev';

/** Placeholders for values the platform provides (Secrets, a SinkBinding's K_SINK, the Pod's identity). */
export const PLATFORM_PLACEHOLDERS: Readonly<Record<string, string>> = {
  REDIS_URL: 'redis://redis.invalid:6379/0',
  K_SINK: 'http://broker-ingress.invalid/landscape-system/default',
  POD_NAME: 'function-00001-deployment-0',
  POD_NAMESPACE: 'landscape-system',
};

/** What the embedded landscape gives every replica besides CONFIG_FILE (and POD_*). */
export const EMBEDDED_ENV: Env = {
  REDIS_URL: PLATFORM_PLACEHOLDERS['REDIS_URL'],
  K_SINK: PLATFORM_PLACEHOLDERS['K_SINK'],
};

/** Kinds that have no namespace. */
export const CLUSTER_SCOPED_KINDS = [
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
] as const;

/** `requeue-tick` → `requeueTick`. */
export function camelCase(name: string): string {
  return name.replace(/[-_]+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function array(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The fields every check reads from a document. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
}

export function refOf(doc: ManifestDoc): ObjectRef {
  const meta = record(doc.object['metadata']);
  return {
    apiVersion: text(doc.object['apiVersion']) ?? '',
    kind: text(doc.object['kind']) ?? '',
    name: text(meta['name']) ?? '',
    namespace: text(meta['namespace']),
  };
}

/** `knative/runtime/x.yaml: Trigger landscape-system/requeue-tick` for messages. */
export function label(doc: ManifestDoc): string {
  const r = refOf(doc);
  const name = r.name === '' ? `document ${doc.index}` : r.name;
  return `${doc.file}: ${r.kind || 'document'} ${r.namespace ? `${r.namespace}/` : ''}${name}`;
}

export function isKnativeService(doc: ManifestDoc): boolean {
  const r = refOf(doc);
  return r.kind === 'Service' && r.apiVersion === KNATIVE_SERVICE_API;
}

/** Every document of a kind (and API version, when given). */
export function docsOf(
  set: Pick<PackagingSet, 'manifests'>,
  kind: string,
  apiVersion?: string,
): ManifestDoc[] {
  return set.manifests.filter((d) => {
    const r = refOf(d);
    return r.kind === kind && (apiVersion === undefined || r.apiVersion === apiVersion);
  });
}

/** A function's Knative Service (the first, when there are several in different families). */
export function serviceOf(set: Pick<PackagingSet, 'manifests'>, name: string): ManifestDoc | undefined {
  return set.manifests.find((d) => isKnativeService(d) && refOf(d).name === name);
}

/** `spec.template.spec` of a Knative Service. */
export function podSpec(service: ManifestDoc): Record<string, unknown> {
  return record(record(record(service.object['spec'])['template'])['spec']);
}

/** The first container of a Knative Service. */
export function container(service: ManifestDoc): Record<string, unknown> {
  return record(array(podSpec(service)['containers'])[0]);
}

export interface EnvEntry {
  name: string;
  value?: string;
  /** `valueFrom` is set (Secret, ConfigMap, downward API). */
  from?: Record<string, unknown>;
}

export function envOf(service: ManifestDoc): EnvEntry[] {
  return array(container(service)['env']).map((e) => {
    const entry = record(e);
    const from = entry['valueFrom'];
    return {
      name: text(entry['name']) ?? '',
      ...(text(entry['value']) !== undefined ? { value: text(entry['value']) } : {}),
      ...(isRecord(from) ? { from } : {}),
    };
  });
}

/**
 * The environment a Service's container gets, for checking its config: literal values as they
 * are, values from Secrets or the downward API as placeholders.
 */
export function serviceEnv(service: ManifestDoc): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of envOf(service)) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.from !== undefined) env[e.name] = PLATFORM_PLACEHOLDERS[e.name] ?? 'placeholder';
  }
  return env;
}
