/**
 * Knative Services (serving.knative.dev/v1) as the activator runs them (pure): one function per
 * Service (the Service name is the function name), with Knative's autoscaling annotations and
 * defaults, the container's env, and the config mount. Every problem is listed with its file.
 */
import { parseAllDocuments } from 'yaml';
import * as z from '../../shared/config/zod.js';

export const AUTOSCALING = 'autoscaling.knative.dev/';

/** One env entry as a replica gets it: a literal, the downward API, or a Secret/ConfigMap key. */
export type EnvSource =
  | { kind: 'value'; value: string }
  | { kind: 'field'; fieldPath: string }
  | { kind: 'secret' | 'configMap'; name: string; key: string; optional: boolean };

export interface FunctionService {
  name: string;
  namespace: string;
  /** `<name>-00001`: the first revision, as Knative names it. */
  revision: string;
  /** Hard limit of concurrent requests per replica; 0 = no limit. */
  containerConcurrency: number;
  /** `autoscaling.knative.dev/max-scale`; 0 = no limit. */
  maxScale: number;
  minScale: number;
  /** Soft concurrency target per replica (`autoscaling.knative.dev/target`, default 100). */
  target: number;
  /** `autoscaling.knative.dev/window` in ms (default 60 s): the idle time before a replica stops. */
  windowMs: number;
  timeoutSeconds: number;
  serviceAccountName?: string;
  image?: string;
  env: ReadonlyArray<{ name: string; from: EnvSource }>;
  /** Mount path of the volume that carries the config ConfigMap, when there is one. */
  configMountPath?: string;
  file?: string;
}

const envVar = z
  .object({
    name: z.string().min(1),
    value: z.string().optional(),
    valueFrom: z
      .object({
        fieldRef: z.object({ fieldPath: z.string().min(1) }).optional(),
        secretKeyRef: z
          .object({ name: z.string().min(1), key: z.string().min(1), optional: z.boolean().optional() })
          .optional(),
        configMapKeyRef: z
          .object({ name: z.string().min(1), key: z.string().min(1), optional: z.boolean().optional() })
          .optional(),
      })
      .optional(),
  })
  .refine((e) => e.value === undefined || e.valueFrom === undefined, {
    message: 'value and valueFrom are mutually exclusive',
  });

const serviceSchema = z.object({
  apiVersion: z.literal('serving.knative.dev/v1'),
  kind: z.literal('Service'),
  metadata: z.object({ name: z.string().min(1), namespace: z.string().min(1).optional() }).loose(),
  spec: z.object({
    template: z.object({
      metadata: z
        .object({ annotations: z.record(z.string(), z.string()).optional() })
        .loose()
        .optional(),
      spec: z
        .object({
          serviceAccountName: z.string().optional(),
          containerConcurrency: z.number().int().min(0).max(1000).optional(),
          timeoutSeconds: z.number().int().min(1).max(3600).optional(),
          containers: z
            .array(
              z
                .object({
                  image: z.string().optional(),
                  env: z.array(envVar).optional(),
                  volumeMounts: z
                    .array(z.object({ name: z.string(), mountPath: z.string() }).loose())
                    .optional(),
                })
                .loose(),
            )
            .length(1, 'exactly one container (the function)'),
          volumes: z
            .array(
              z
                .object({ name: z.string(), configMap: z.object({ name: z.string() }).loose().optional() })
                .loose(),
            )
            .optional(),
        })
        .loose(),
    }),
  }),
});
type ServiceManifest = z.infer<typeof serviceSchema>;

/** A Knative duration annotation ("60s", "2m", "1m30s"); undefined when malformed. */
export function parseKnativeDuration(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text.trim());
  if (!m || text.trim() === '') return undefined;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

function intAnnotation(
  annotations: Record<string, string>,
  key: string,
  fallback: number,
  problems: string[],
): number {
  const raw = annotations[AUTOSCALING + key];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    problems.push(`annotation ${AUTOSCALING}${key}: "${raw}" is not a whole number >= 0`);
    return fallback;
  }
  return n;
}

function envSource(e: z.infer<typeof envVar>): EnvSource {
  const from = e.valueFrom;
  if (from?.fieldRef) return { kind: 'field', fieldPath: from.fieldRef.fieldPath };
  if (from?.secretKeyRef)
    return { kind: 'secret', ...from.secretKeyRef, optional: from.secretKeyRef.optional ?? false };
  if (from?.configMapKeyRef)
    return { kind: 'configMap', ...from.configMapKeyRef, optional: from.configMapKeyRef.optional ?? false };
  return { kind: 'value', value: e.value ?? '' };
}

function configMountPath(spec: ServiceManifest['spec']['template']['spec']): string | undefined {
  const volumes = new Set((spec.volumes ?? []).filter((v) => v.configMap !== undefined).map((v) => v.name));
  return spec.containers[0].volumeMounts?.find((m) => volumes.has(m.name))?.mountPath;
}

function scaling(
  annotations: Record<string, string>,
  problems: string[],
): Pick<FunctionService, 'maxScale' | 'minScale' | 'target' | 'windowMs'> {
  const window = annotations[`${AUTOSCALING}window`];
  const windowMs = window === undefined ? 60_000 : parseKnativeDuration(window);
  if (windowMs === undefined) problems.push(`annotation ${AUTOSCALING}window: "${window}" is not a duration`);
  const out = {
    maxScale: intAnnotation(annotations, 'max-scale', 0, problems),
    minScale: intAnnotation(annotations, 'min-scale', 0, problems),
    target: intAnnotation(annotations, 'target', 100, problems),
    windowMs: windowMs ?? 60_000,
  };
  if (out.maxScale > 0 && out.minScale > out.maxScale)
    problems.push(`min-scale ${out.minScale} is above max-scale ${out.maxScale}`);
  if (out.target === 0) problems.push(`annotation ${AUTOSCALING}target: must be at least 1`);
  return out;
}

/** The entries whose value is defined (for optional properties). */
function optional<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

/** One Service manifest → FunctionService, or the problems. */
export function toFunctionService(
  input: unknown,
  file?: string,
): { service?: FunctionService; problems: string[] } {
  const parsed = serviceSchema.safeParse(input);
  if (!parsed.success)
    return { problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  const m = parsed.data;
  const problems: string[] = [];
  const spec = m.spec.template.spec;
  const container = spec.containers[0];
  const scale = scaling(m.spec.template.metadata?.annotations ?? {}, problems);
  const service: FunctionService = {
    name: m.metadata.name,
    namespace: m.metadata.namespace ?? 'default',
    revision: `${m.metadata.name}-00001`,
    containerConcurrency: spec.containerConcurrency ?? 0,
    ...scale,
    timeoutSeconds: spec.timeoutSeconds ?? 300,
    env: (container.env ?? []).map((e) => ({ name: e.name, from: envSource(e) })),
    ...optional({
      serviceAccountName: spec.serviceAccountName,
      image: container.image,
      configMountPath: configMountPath(spec),
      file,
    }),
  };
  return problems.length > 0 ? { problems } : { service, problems };
}

/** Every Knative Service in a (multi-document) YAML text; other kinds are skipped. */
export function parseServices(
  text: string,
  file: string,
): { services: FunctionService[]; problems: string[] } {
  const services: FunctionService[] = [];
  const problems: string[] = [];
  parseAllDocuments(text).forEach((doc, index) => {
    if (doc.errors.length > 0) {
      problems.push(...doc.errors.map((e) => `${file}: document ${index + 1}: ${e.message}`));
      return;
    }
    const value = doc.toJS() as {
      kind?: unknown;
      apiVersion?: unknown;
      metadata?: { name?: unknown };
    } | null;
    if (value?.kind !== 'Service' || value.apiVersion !== 'serving.knative.dev/v1') return;
    const r = toFunctionService(value, file);
    const name = typeof value.metadata?.name === 'string' ? value.metadata.name : `document ${index + 1}`;
    const label = `${file}: Service ${name}`;
    problems.push(...r.problems.map((p) => `${label}: ${p}`));
    if (r.service) services.push(r.service);
  });
  return { services, problems };
}
