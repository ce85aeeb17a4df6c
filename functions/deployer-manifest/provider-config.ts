/**
 * The manifest deployer's provider configuration (`spec.config` of a
 * `landscaper.gardener.cloud/kubernetes-manifest` DeployItem), parsed and checked without I/O.
 *
 * Two versions, as upstream (apis/deployer/manifest):
 * - `manifest.deployer.landscaper.gardener.cloud/v1alpha1`: `manifests` is a plain list of
 *   Kubernetes objects, each managed with policy `manage`.
 * - `.../v1alpha2`: `manifests[] {policy, manifest, annotateBeforeCreate, annotateBeforeDelete}`.
 * Both: `updateStrategy` (update (default), patch, merge, mergeOverwrite), `readinessChecks
 * {disableDefault, custom[]}` (readiness-config.ts), `kubeconfig` (base64; used instead of the
 * Target when set), `deleteTimeout` and `continuousReconcile` (accepted; `deleteTimeout` is not
 * used: deletion waits are bounded by the progressing timeout; the runtime's hooks read
 * `continuousReconcile`).
 *
 * Every problem is listed, each naming where it is (`manifests[2] (ConfigMap default/cm)`).
 * `exports` (exports-config.ts), `deletionGroups` / `deletionGroupsDuringUpdate`
 * (deletion-config.ts) and the entries' `patchAfterDeployment` / `patchBeforeDelete` (objects
 * merged into the deployed object after the deployment / before its delete) as upstream.
 * Upstream features this deployer does not implement are refused by name rather than silently
 * ignored.
 */
import * as z from '../../shared/config/zod.js';
import {
  deletionGroupsOf,
  deletionGroupsProblems,
  deletionGroupsSchema,
  type DeletionGroupDefinition,
} from './deletion-config.js';
import { exportsOf, exportsProblems, exportsSchema, type ManifestExport } from './exports-config.js';
import { groupOf } from './objects.js';
import {
  readinessChecksSchema,
  readinessOf,
  requirementProblems,
  targetNameProblems,
  type ReadinessChecks,
} from './readiness-config.js';
import { isRecord, isOneOf } from '@landscape/apimachinery';

export {
  REQUIREMENT_OPERATORS,
  type CustomReadinessCheck,
  type CustomReadinessRequirement,
  type ReadinessChecks,
  type RequirementOperator,
  type TypedObjectReference,
} from './readiness-config.js';

export const MANIFEST_CONFIG_GROUP = 'manifest.deployer.landscaper.gardener.cloud';
export const MANIFEST_CONFIG_VERSIONS = ['v1alpha1', 'v1alpha2'] as const;
export type ManifestConfigVersion = (typeof MANIFEST_CONFIG_VERSIONS)[number];

export const MANIFEST_POLICIES = ['manage', 'fallback', 'keep', 'ignore', 'immutable'] as const;
export type ManifestPolicy = (typeof MANIFEST_POLICIES)[number];
export const isManifestPolicy: (value: unknown) => value is ManifestPolicy = isOneOf(MANIFEST_POLICIES);

export const UPDATE_STRATEGIES = ['update', 'patch', 'merge', 'mergeOverwrite'] as const;
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];
export const isUpdateStrategy: (value: unknown) => value is UpdateStrategy = isOneOf(UPDATE_STRATEGIES);

/** Upstream fields this deployer refuses (not implemented), with what to say. */
const UNSUPPORTED_FIELDS: readonly (readonly [string, string])[] = [];
const UNSUPPORTED_ENTRY_FIELDS: readonly (readonly [string, string])[] = [];

/** A Kubernetes object as given in the configuration (checked to have these fields). */
export interface KubeManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

export interface ManifestEntry {
  /** Position in `manifests` (for messages). */
  index: number;
  policy: ManifestPolicy;
  object: KubeManifest;
  annotateBeforeCreate?: Record<string, string>;
  annotateBeforeDelete?: Record<string, string>;
  patchAfterDeployment?: Record<string, unknown>;
  patchBeforeDelete?: Record<string, unknown>;
}

export interface ManifestProviderConfig {
  version: ManifestConfigVersion;
  updateStrategy: UpdateStrategy;
  manifests: ManifestEntry[];
  readinessChecks: ReadinessChecks;
  /** Kubeconfig YAML (decoded from base64) to use instead of the Target's. */
  kubeconfig?: string;
  /** `exports.exports[]`, in order. */
  exports: ManifestExport[];
  /** The uninstall's deletion groups (upstream's defaults when none are configured). */
  deletionGroups: DeletionGroupDefinition[];
  /** The deletion groups for objects dropped from the list. */
  deletionGroupsDuringUpdate: DeletionGroupDefinition[];
}

export type ConfigParseResult =
  { ok: true; config: ManifestProviderConfig } | { ok: false; problems: string[] };

const stringMap = z.record(z.string(), z.string());
const rawObject = z.record(z.string(), z.unknown(), { error: 'expected an object' });

const baseSchema = z.object({
  apiVersion: z.enum(
    MANIFEST_CONFIG_VERSIONS.map((v) => `${MANIFEST_CONFIG_GROUP}/${v}`),
    {
      error: `expected ${MANIFEST_CONFIG_GROUP}/v1alpha1 or /v1alpha2`,
    },
  ),
  kind: z.literal('ProviderConfiguration').optional(),
  kubeconfig: z.string().optional(),
  updateStrategy: z.enum([...UPDATE_STRATEGIES, '']).optional(),
  readinessChecks: readinessChecksSchema.optional(),
  deleteTimeout: z.union([z.string(), z.number()]).optional(),
  continuousReconcile: z.unknown().optional(),
  exports: exportsSchema,
  deletionGroups: deletionGroupsSchema,
  deletionGroupsDuringUpdate: deletionGroupsSchema,
});

const v1alpha1Schema = baseSchema.extend({ manifests: z.array(rawObject).optional() });

const entrySchema = z.object({
  policy: z.enum([...MANIFEST_POLICIES, '']).optional(),
  manifest: rawObject.optional(),
  annotateBeforeCreate: stringMap.optional(),
  annotateBeforeDelete: stringMap.optional(),
  patchAfterDeployment: rawObject.optional(),
  patchBeforeDelete: rawObject.optional(),
});
const v1alpha2Schema = baseSchema.extend({ manifests: z.array(entrySchema).optional() });

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `ConfigMap default/cm`, `Namespace ns`, or whatever parts the manifest has. */
export function describeManifest(manifest: unknown): string {
  if (!isRecord(manifest)) return 'not an object';
  const meta = isRecord(manifest.metadata) ? manifest.metadata : {};
  const kind = str(manifest.kind) ?? '<no kind>';
  const name = str(meta.name) ?? '<no name>';
  const namespace = str(meta.namespace);
  return namespace ? `${kind} ${namespace}/${name}` : `${kind} ${name}`;
}

/** `manifests[2] (ConfigMap default/cm)`: how problems name a manifest. */
export function manifestLabel(index: number, manifest: unknown): string {
  return `manifests[${index}] (${describeManifest(manifest)})`;
}

function zodProblems(error: z.ZodError, manifestAt: (i: number) => unknown): string[] {
  return error.issues.map((issue) => {
    const [first, second, ...rest] = issue.path.map(String);
    if (first === 'manifests' && second !== undefined && /^\d+$/.test(second)) {
      const where = rest.length > 0 ? `${rest.join('.')}: ` : '';
      return `${manifestLabel(Number(second), manifestAt(Number(second)))}: ${where}${issue.message}`;
    }
    return `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`;
  });
}

function isStringMap(value: unknown): boolean {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

function metadataProblems(meta: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!str(meta.name)) problems.push('metadata.name: must be a non-empty string');
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string')
    problems.push('metadata.namespace: must be a string');
  for (const field of ['labels', 'annotations'] as const) {
    if (meta[field] !== undefined && !isStringMap(meta[field]))
      problems.push(`metadata.${field}: must be a map of strings`);
  }
  return problems;
}

/** What a (non-ignored) manifest must have before it goes to a cluster. */
export function manifestShapeProblems(manifest: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!str(manifest.apiVersion)) problems.push('apiVersion: must be a non-empty string');
  if (!str(manifest.kind)) problems.push('kind: must be a non-empty string');
  const meta = manifest.metadata;
  if (!isRecord(meta)) return [...problems, 'metadata: must be an object with a name'];
  return [...problems, ...metadataProblems(meta)];
}

/** The identity used for duplicate detection: group, kind, namespace (as given), name. */
export function manifestIdentity(m: KubeManifest): string {
  return [groupOf(m.apiVersion), m.kind, m.metadata.namespace ?? '', m.metadata.name].join('/');
}

interface RawManifestEntry extends ManifestEntry {
  raw: Record<string, unknown>;
}

function entryProblems(entry: RawManifestEntry): string[] {
  const unsupported = UNSUPPORTED_ENTRY_FIELDS.filter(([f]) => entry.raw[f] !== undefined);
  const shape = entry.policy === 'ignore' ? [] : manifestShapeProblems(entry.object);
  const label = manifestLabel(entry.index, entry.object);
  return [...unsupported.map(([, msg]) => msg), ...shape].map((p) => `${label}: ${p}`);
}

function duplicateProblems(entries: readonly ManifestEntry[]): string[] {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  for (const e of entries) {
    if (e.policy === 'ignore' || manifestShapeProblems(e.object).length > 0) continue;
    const id = manifestIdentity(e.object);
    const first = seen.get(id);
    if (first === undefined) seen.set(id, e.index);
    else problems.push(`${manifestLabel(e.index, e.object)}: the same object as manifests[${first}]`);
  }
  return problems;
}

function v1alpha2Entry(e: unknown, index: number): RawManifestEntry | undefined {
  if (!isRecord(e) || !isRecord(e.manifest)) return undefined;
  return {
    index,
    raw: e,
    policy: isManifestPolicy(e.policy) ? e.policy : 'manage',
    object: e.manifest as KubeManifest,
    ...(isRecord(e.annotateBeforeCreate)
      ? { annotateBeforeCreate: e.annotateBeforeCreate as Record<string, string> }
      : {}),
    ...(isRecord(e.annotateBeforeDelete)
      ? { annotateBeforeDelete: e.annotateBeforeDelete as Record<string, string> }
      : {}),
    ...(isRecord(e.patchAfterDeployment) ? { patchAfterDeployment: e.patchAfterDeployment } : {}),
    ...(isRecord(e.patchBeforeDelete) ? { patchBeforeDelete: e.patchBeforeDelete } : {}),
  };
}

/** The entries whose manifest is an object (the schema reports the others). */
function entriesOf(version: ManifestConfigVersion, config: Record<string, unknown>): RawManifestEntry[] {
  const list = Array.isArray(config.manifests) ? (config.manifests as unknown[]) : [];
  const entries = list.map((m, index): RawManifestEntry | undefined => {
    if (version === 'v1alpha2') return v1alpha2Entry(m, index);
    return isRecord(m) ? { index, raw: {}, policy: 'manage', object: m as KubeManifest } : undefined;
  });
  return entries.filter((e): e is RawManifestEntry => e !== undefined);
}

/** v1alpha2 entries without a manifest (upstream: "manifest must be defined"). */
function missingManifestProblems(version: ManifestConfigVersion, config: Record<string, unknown>): string[] {
  if (version !== 'v1alpha2' || !Array.isArray(config.manifests)) return [];
  return (config.manifests as unknown[]).flatMap((e, i) =>
    isRecord(e) && e.manifest === undefined ? [`manifests[${i}]: manifest: must be defined`] : [],
  );
}

/**
 * Only the `kubeconfig` of a configuration (the uninstall needs the cluster even when the rest
 * of the configuration no longer parses): the decoded YAML, undefined when there is none.
 * Throws an Error for a value that is not base64.
 */
export function kubeconfigOf(config: unknown): string | undefined {
  const problems: string[] = [];
  const yaml = decodeKubeconfig(isRecord(config) ? config.kubeconfig : undefined, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return yaml;
}

function decodeKubeconfig(value: unknown, problems: string[]): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    problems.push('kubeconfig: must be a base64 encoded kubeconfig');
    return undefined;
  }
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    problems.push('kubeconfig: must be a base64 encoded kubeconfig');
    return undefined;
  }
  return Buffer.from(compact, 'base64').toString('utf8');
}

function versionOf(config: unknown): ManifestConfigVersion | undefined {
  const apiVersion = isRecord(config) ? config.apiVersion : undefined;
  return MANIFEST_CONFIG_VERSIONS.find((v) => apiVersion === `${MANIFEST_CONFIG_GROUP}/${v}`);
}

function manifestAtFor(
  version: ManifestConfigVersion,
  config: Record<string, unknown>,
): (i: number) => unknown {
  const raw = Array.isArray(config.manifests) ? (config.manifests as unknown[]) : [];
  if (version === 'v1alpha1') return (i) => raw[i];
  return (i) => (isRecord(raw[i]) ? raw[i].manifest : undefined);
}

/** Problems found beside the schema's (they need only the raw configuration). */
function localProblems(
  version: ManifestConfigVersion,
  config: Record<string, unknown>,
  entries: RawManifestEntry[],
): string[] {
  return [
    ...UNSUPPORTED_FIELDS.filter(([f]) => config[f] !== undefined).map(([f, m]) => `${f}: ${m}`),
    ...missingManifestProblems(version, config),
    ...entries.flatMap(entryProblems),
    ...duplicateProblems(entries),
    ...targetNameProblems(config),
    ...exportsProblems(config),
    ...deletionGroupsProblems(config),
  ];
}

function strip(entry: RawManifestEntry): ManifestEntry {
  const { raw: _raw, ...rest } = entry;
  return rest;
}

function assemble(
  version: ManifestConfigVersion,
  strategy: UpdateStrategy | '' | undefined,
  entries: RawManifestEntry[],
  readinessChecks: ReadinessChecks,
  kubeconfig: string | undefined,
  exports: ManifestExport[],
  raw: Record<string, unknown>,
): ManifestProviderConfig {
  return {
    version,
    updateStrategy: strategy || 'update',
    manifests: entries.map(strip),
    readinessChecks,
    exports,
    deletionGroups: deletionGroupsOf(raw.deletionGroups),
    deletionGroupsDuringUpdate: deletionGroupsOf(raw.deletionGroupsDuringUpdate),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
  };
}

/** Parses and checks a provider configuration; every problem is listed. */
export function parseProviderConfig(config: unknown): ConfigParseResult {
  if (!isRecord(config)) return { ok: false, problems: ['(root): expected an object'] };
  const version = versionOf(config) ?? 'v1alpha2';
  const parsed = (version === 'v1alpha1' ? v1alpha1Schema : v1alpha2Schema).safeParse(config);
  const entries = entriesOf(version, config);
  const problems = parsed.success ? [] : zodProblems(parsed.error, manifestAtFor(version, config));
  problems.push(...localProblems(version, config, entries));
  const kubeconfig = decodeKubeconfig(config.kubeconfig, problems);
  if (!parsed.success) return { ok: false, problems };
  const readinessChecks = readinessOf(parsed.data.readinessChecks);
  problems.push(...requirementProblems(readinessChecks.custom));
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    config: assemble(
      version,
      parsed.data.updateStrategy,
      entries,
      readinessChecks,
      kubeconfig,
      exportsOf(parsed.data.exports),
      config,
    ),
  };
}
