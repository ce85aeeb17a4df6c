/**
 * Configuration of the dependency watchdog's prober and weeder (seed 003, specs/dependency-watchdog.md),
 * pure: the config files in upstream's format, checked with every problem listed as `<key path>: <problem>`.
 *
 * How a file is read, as upstream reads it (sigs.k8s.io/yaml: go-yaml v2 → JSON → encoding/json):
 * - YAML 1.1 scalars (`yes`/`no`/`on`/`off` are booleans).
 * - Struct keys match case-insensitively (encoding/json folds case, `ſ` ~ `s` and `K` (Kelvin) ~ `k`
 *   included); map keys (service names, matchLabels) are exact. Two keys that fold to the same field
 *   are a problem here (Go silently keeps the last).
 * - `null` is the same as an absent key.
 * - A YAML number or boolean where Go wants a string becomes its text (`name: 123` → "123",
 *   `key: y` → "true": YAML 1.1 reads `y` as a boolean).
 * - Durations are Go duration strings (`30s`, `5m0s`); a number is refused (metav1.Duration wants a
 *   string). Values here are milliseconds.
 * Stricter than upstream (upstream ignores or accepts these): unknown keys, negative durations, a
 * zero probe interval/timeout/scale timeout, levels below 0, nodeLeaseFailureFraction outside (0, 1],
 * a null pod selector.
 *
 * Seed flags that still mean something for a function are keys of the file, overridden by the
 * environment: `kubeApiQps` (KUBE_API_QPS, 0 → 5), `kubeApiBurst` (KUBE_API_BURST, 0 → 10),
 * `concurrentReconciles` (CONCURRENT_RECONCILES, 0 → 1). `config-file` is CONFIG_FILE; leader
 * election and the metrics/health bind addresses have no meaning for a function.
 */
import { parse as parseYaml } from 'yaml';
import * as z from '../config/zod.js';
import { isQualifiedName, isRecord, isValidLabelValue, parseGoDuration } from '@landscape/apimachinery';
import { envValue, type ConfigResult, type EnvOverride } from '../config/index.js';

import { at, canonicalKeys, PROBER_SHAPE, WEEDER_SHAPE, type Shape } from './keys.js';
export { foldKey } from './keys.js';
export type { ConfigResult } from '../config/index.js';

// ---- defaults (upstream internal/prober/config.go, internal/weeder/config.go, the seed's table) ----

export const DEFAULT_PROBE_INTERVAL_MS = 10_000;
export const DEFAULT_PROBE_INITIAL_DELAY_MS = 30_000;
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;
export const DEFAULT_BACKOFF_JITTER_FACTOR = 0.2;
/** Upstream v1 code (the seed's table says required): KCM's own default node-monitor-grace-period. */
export const DEFAULT_KCM_NODE_MONITOR_GRACE_DURATION_MS = 40_000;
export const DEFAULT_NODE_LEASE_FAILURE_FRACTION = 0.6;
export const DEFAULT_SCALE_INITIAL_DELAY_MS = 0;
export const DEFAULT_SCALE_TIMEOUT_MS = 30_000;
export const DEFAULT_WATCH_DURATION_MS = 300_000;
export const DEFAULT_KUBE_API_QPS = 5;
export const DEFAULT_KUBE_API_BURST = 10;
export const DEFAULT_CONCURRENT_RECONCILES = 1;
export const DEFAULT_KUBE_CONFIG_SECRET_NAME = 'dwd-api-server-probe-secret';

/** The embedded landscape's prober config (upstream's example dependents). */
export const DEFAULT_PROBER_CONFIG_YAML = `# Dependency watchdog prober (upstream's format; durations are Go duration strings)
kubeConfigSecretName: ${DEFAULT_KUBE_CONFIG_SECRET_NAME}
probeInterval: 10s
initialDelay: 30s
probeTimeout: 30s
backoffJitterFactor: 0.2
kcmNodeMonitorGraceDuration: 40s
nodeLeaseFailureFraction: 0.6
dependentResourceInfos:
  - ref:
      kind: Deployment
      name: kube-controller-manager
      apiVersion: apps/v1
    optional: false
    scaleUp:
      level: 0
    scaleDown:
      level: 1
  - ref:
      kind: Deployment
      name: machine-controller-manager
      apiVersion: apps/v1
    optional: false
    scaleUp:
      level: 1
      initialDelay: 30s
    scaleDown:
      level: 0
  - ref:
      kind: Deployment
      name: cluster-autoscaler
      apiVersion: apps/v1
    optional: true
    scaleUp:
      level: 2
    scaleDown:
      level: 0
`;

/** The embedded landscape's weeder config (upstream's example selectors). */
export const DEFAULT_WEEDER_CONFIG_YAML = `# Dependency watchdog weeder (upstream's format)
watchDuration: 5m0s
servicesAndDependantSelectors:
  etcd-main-client:
    podSelectors:
      - matchExpressions:
          - key: gardener.cloud/role
            operator: In
            values:
              - controlplane
          - key: role
            operator: In
            values:
              - apiserver
  kube-apiserver:
    podSelectors:
      - matchExpressions:
          - key: gardener.cloud/role
            operator: In
            values:
              - controlplane
          - key: role
            operator: NotIn
            values:
              - main
              - apiserver
`;

// ---- schemas ----

function duration(min: 'positive' | 'nonnegative'): z.ZodType<number, string> {
  return z
    .string({
      error: (iss) => (iss.input === undefined ? 'required' : 'must be a Go duration string such as "30s"'),
    })
    .transform((value, ctx) => {
      let ms: number;
      try {
        ms = parseGoDuration(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
      if (ms < 0 || (min === 'positive' && ms === 0)) {
        ctx.addIssue({
          code: 'custom',
          message: `must be ${min === 'positive' ? 'greater than 0' : 'at least 0'}`,
        });
        return z.NEVER;
      }
      return ms;
    });
}

const required = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? 'required' : `must be ${what}`;

/** 0 means "the default", as the seed's flags say. */
const flag = (def: number, int: boolean): z.ZodType<number, number | undefined> =>
  (int ? z.number().int() : z.number())
    .min(0)
    .transform((v) => (v === 0 ? def : v))
    .default(def);

const FLAG_KEYS = {
  kubeApiQps: flag(DEFAULT_KUBE_API_QPS, false),
  kubeApiBurst: flag(DEFAULT_KUBE_API_BURST, true),
  concurrentReconciles: flag(DEFAULT_CONCURRENT_RECONCILES, true),
};

const ScaleInfoSchema = z.strictObject({
  level: z
    .number({ error: required('a whole number') })
    .int('must be a whole number')
    .min(0),
  initialDelay: duration('nonnegative').default(DEFAULT_SCALE_INITIAL_DELAY_MS),
  timeout: duration('positive').default(DEFAULT_SCALE_TIMEOUT_MS),
});

const nonEmpty = z.string({ error: required('a string') }).min(1, 'must not be empty');

const RefSchema = z.strictObject({
  apiVersion: z
    .string({ error: required('a string') })
    .regex(
      /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9][a-z0-9]*$/,
      'must be "<group>/<version>" or "<version>"',
    ),
  kind: nonEmpty,
  name: nonEmpty,
});

const DependentResourceInfoSchema = z.strictObject({
  ref: RefSchema,
  optional: z.boolean({ error: 'must be true or false' }).default(false),
  /** Absent: never scaled up (the seed's table). */
  scaleUp: ScaleInfoSchema.optional(),
  /** Absent: never scaled down. */
  scaleDown: ScaleInfoSchema.optional(),
});

export const ProberConfigSchema = z.strictObject({
  kubeConfigSecretName: nonEmpty,
  probeInterval: duration('positive').default(DEFAULT_PROBE_INTERVAL_MS),
  initialDelay: duration('nonnegative').default(DEFAULT_PROBE_INITIAL_DELAY_MS),
  probeTimeout: duration('positive').default(DEFAULT_PROBE_TIMEOUT_MS),
  backoffJitterFactor: z.number().min(0).default(DEFAULT_BACKOFF_JITTER_FACTOR),
  kcmNodeMonitorGraceDuration: duration('positive').default(DEFAULT_KCM_NODE_MONITOR_GRACE_DURATION_MS),
  nodeLeaseFailureFraction: z.number().gt(0).max(1).default(DEFAULT_NODE_LEASE_FAILURE_FRACTION),
  dependentResourceInfos: z
    .array(DependentResourceInfoSchema, { error: required('a list') })
    .min(1, 'must list at least one dependent resource'),
  ...FLAG_KEYS,
});

/** The prober config; every duration in milliseconds. */
export type ProberConfig = z.output<typeof ProberConfigSchema>;
export type DependentResourceInfo = ProberConfig['dependentResourceInfos'][number];
export type ScaleInfo = NonNullable<DependentResourceInfo['scaleUp']>;

// Label selectors, checked as metav1.LabelSelectorAsSelector checks them.
const labelKey = z
  .string()
  .refine(isQualifiedName, 'must be a qualified label key such as "gardener.cloud/role"');
const labelValue = z.string().refine(isValidLabelValue, 'must be a label value');

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

const RequirementSchema = z
  .strictObject({
    key: labelKey,
    operator: z.enum(OPERATORS, { error: `must be one of ${OPERATORS.join(', ')}` }),
    values: z.array(labelValue).optional(),
  })
  .superRefine((r, ctx) => {
    const n = r.values?.length ?? 0;
    const wantsValues = r.operator === 'In' || r.operator === 'NotIn';
    if (wantsValues && n === 0)
      ctx.addIssue({ code: 'custom', path: ['values'], message: `must not be empty for ${r.operator}` });
    if (!wantsValues && n > 0)
      ctx.addIssue({ code: 'custom', path: ['values'], message: `must be empty for ${r.operator}` });
  });

export const LabelSelectorSchema = z.strictObject(
  {
    matchLabels: z
      .record(z.string(), labelValue)
      .superRefine((labels, ctx) => {
        for (const key of Object.keys(labels).filter((k) => !isQualifiedName(k))) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'must be a qualified label key' });
        }
      })
      .optional(),
    matchExpressions: z.array(RequirementSchema).optional(),
  },
  { error: required('a label selector mapping') },
);

export const WeederConfigSchema = z.strictObject({
  watchDuration: duration('positive').default(DEFAULT_WATCH_DURATION_MS),
  servicesAndDependantSelectors: z
    .record(
      z.string().min(1, 'service name must not be empty'),
      z.strictObject({
        podSelectors: z
          .array(LabelSelectorSchema, { error: required('a list') })
          .min(1, 'must list at least one pod selector'),
      }),
      { error: required('a mapping of service name to {podSelectors}') },
    )
    .refine((m) => Object.keys(m).length > 0, 'must name at least one service'),
  ...FLAG_KEYS,
});

/** The weeder config; `watchDuration` in milliseconds. */
export type WeederConfig = z.output<typeof WeederConfigSchema>;

/** Environment variable → config key (the seed's flags). */
export const WATCHDOG_ENV_OVERRIDES = {
  KUBE_API_QPS: { key: 'kubeApiQps', kind: 'number' },
  KUBE_API_BURST: { key: 'kubeApiBurst', kind: 'number' },
  CONCURRENT_RECONCILES: { key: 'concurrentReconciles', kind: 'number' },
} as const satisfies Record<string, EnvOverride>;

// ---- loading ----

/** Keys of upstream's older formats: named so a migrated file says what to drop. */
const LEGACY_KEYS = new Set([
  'internalKubeConfigSecretName',
  'externalKubeConfigSecretName',
  'successThreshold',
  'failureThreshold',
  'apiServerProbeFailureBackoffDuration',
  'internalProbeFailureBackoffDuration',
  'leaseFailureThresholdFraction',
  'shouldExist',
  'replicas',
]);

function problemLines(error: z.ZodError, fromEnv: ReadonlyMap<string, string>): string[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map(
        (k) =>
          `${at(path, k)}: unknown key${LEGACY_KEYS.has(k) ? " (no longer part of upstream's format)" : ''}`,
      );
    }
    const env = fromEnv.get(path);
    return [`${path === '' ? '(root)' : path}: ${issue.message}${env ? ` (from ${env})` : ''}`];
  });
}

function parseDocument(text: string | undefined, problems: string[]): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    const doc: unknown = parseYaml(text, { version: '1.1' });
    if (doc === null || doc === undefined) return {};
    if (isRecord(doc)) return doc;
    problems.push('config file: the document must be a mapping');
  } catch (err) {
    problems.push(`config file: not YAML: ${(err as Error).message}`);
  }
  return {};
}

function loadWith<S extends z.ZodType>(
  schema: S,
  shape: Shape,
  text: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<z.output<S>> {
  const problems: string[] = [];
  const raw = canonicalKeys(parseDocument(text, problems), shape, '', problems) as Record<string, unknown>;
  const fromEnv = new Map<string, string>();
  for (const [name, o] of Object.entries(WATCHDOG_ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    raw[o.key] = envValue(o.kind, value);
    fromEnv.set(o.key, name);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) problems.push(...problemLines(parsed.error, fromEnv));
  if (problems.length > 0 || !parsed.success) return { ok: false, problems };
  return { ok: true, config: parsed.data };
}

/** The prober's config file (may be absent) with the environment's overrides; every problem listed. */
export function loadProberConfig(
  text: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<ProberConfig> {
  return loadWith(ProberConfigSchema, PROBER_SHAPE, text, env);
}

/** The weeder's config file (may be absent) with the environment's overrides; every problem listed. */
export function loadWeederConfig(
  text: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConfigResult<WeederConfig> {
  return loadWith(WeederConfigSchema, WEEDER_SHAPE, text, env);
}
