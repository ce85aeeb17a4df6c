/**
 * Knative Trigger (eventing.knative.dev/v1) and Broker manifests: zod schemas and the normalized
 * shapes the broker routes with. Validation follows Knative's webhook where it matters here:
 * each `filters` entry has exactly one dialect; `exact`/`prefix`/`suffix` hold exactly one
 * attribute with a non-empty value; attribute names are lowercase letters and digits. `cesql` is
 * recognised and reported as unsupported.
 */
import { isOneOf } from '@landscape/apimachinery';
import * as z from '../../shared/config/zod.js';
import { isValidAttributeName } from '../../shared/events/index.js';
import { isIsoDuration } from './duration.js';

export const FILTER_DIALECTS = ['exact', 'prefix', 'suffix', 'all', 'any', 'not', 'cesql'] as const;
export type FilterDialect = (typeof FILTER_DIALECTS)[number];

export const BACKOFF_POLICIES = ['linear', 'exponential'] as const;
export type BackoffPolicy = (typeof BACKOFF_POLICIES)[number];
export const isBackoffPolicy: (value: unknown) => value is BackoffPolicy = isOneOf(BACKOFF_POLICIES);

/** One entry of `spec.filters` (Knative's SubscriptionsAPIFilter). */
export interface SubscriptionsApiFilter {
  exact?: Record<string, string>;
  prefix?: Record<string, string>;
  suffix?: Record<string, string>;
  all?: SubscriptionsApiFilter[];
  any?: SubscriptionsApiFilter[];
  not?: SubscriptionsApiFilter;
  cesql?: string;
}

function badAttributeNames(map: Record<string, string>): string[] {
  return Object.keys(map).filter((k) => !isValidAttributeName(k));
}

/** A map of attribute names to strings; names are lowercase letters and digits. */
const attributeMap = z.record(z.string(), z.string()).superRefine((m, ctx) => {
  for (const name of badAttributeNames(m)) {
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: 'attribute names are lowercase letters and digits only',
    });
  }
});

const singleAttribute = attributeMap.superRefine((m, ctx) => {
  if (Object.keys(m).length !== 1)
    ctx.addIssue({ code: 'custom', message: 'exactly one attribute and value expected' });
  for (const [name, value] of Object.entries(m)) {
    if (value === '') ctx.addIssue({ code: 'custom', path: [name], message: 'the value must not be empty' });
  }
});

export const filterSchema: z.ZodType<SubscriptionsApiFilter> = z.lazy(() =>
  z
    .object({
      exact: singleAttribute.optional(),
      prefix: singleAttribute.optional(),
      suffix: singleAttribute.optional(),
      all: z.array(filterSchema).optional(),
      any: z.array(filterSchema).optional(),
      not: filterSchema.optional(),
      cesql: z.string().optional(),
    })
    .strict()
    .superRefine((f, ctx) => {
      const set = FILTER_DIALECTS.filter((d) => f[d] !== undefined);
      if (set.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message: `exactly one of ${FILTER_DIALECTS.join(', ')} expected, found ${set.length === 0 ? 'none' : set.join(', ')}`,
        });
      }
      if (f.cesql !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['cesql'],
          message:
            'CESQL filters are not supported by the local broker (use exact, prefix, suffix, all, any, not)',
        });
      }
    }),
);

const isoDuration = z.string().refine(isIsoDuration, { message: 'not an ISO-8601 duration (e.g. PT0.5S)' });

export const destinationSchema = z
  .object({
    ref: z
      .object({
        apiVersion: z.string().optional(),
        kind: z.string().min(1),
        name: z.string().min(1),
        namespace: z.string().optional(),
      })
      .optional(),
    uri: z.string().min(1).optional(),
  })
  .refine((d) => d.ref !== undefined || d.uri !== undefined, { message: 'either ref or uri is required' });
export type Destination = z.infer<typeof destinationSchema>;

export const deliverySchema = z.object({
  retry: z.number().int().min(0).optional(),
  backoffPolicy: z.enum(BACKOFF_POLICIES).optional(),
  backoffDelay: isoDuration.optional(),
  timeout: isoDuration.optional(),
  deadLetterSink: destinationSchema.optional(),
  retryAfterMax: isoDuration.optional(),
});
export type DeliverySpec = z.infer<typeof deliverySchema>;

const metadataSchema = z.object({ name: z.string().min(1), namespace: z.string().min(1).optional() });

export const triggerSchema = z.object({
  apiVersion: z.literal('eventing.knative.dev/v1'),
  kind: z.literal('Trigger'),
  metadata: metadataSchema,
  spec: z.object({
    broker: z.string().min(1),
    filter: z.object({ attributes: attributeMap.optional() }).optional(),
    filters: z.array(filterSchema).optional(),
    subscriber: destinationSchema,
    delivery: deliverySchema.optional(),
  }),
});
export type TriggerManifest = z.infer<typeof triggerSchema>;

export const brokerSchema = z.object({
  apiVersion: z.literal('eventing.knative.dev/v1'),
  kind: z.literal('Broker'),
  metadata: metadataSchema,
  spec: z.object({ delivery: deliverySchema.optional() }).optional(),
});
export type BrokerManifest = z.infer<typeof brokerSchema>;

/** A Trigger as the broker routes with it. */
export interface Trigger {
  name: string;
  namespace: string;
  broker: string;
  /** `spec.filter.attributes` (legacy exact match; "" means "present and non-empty"). */
  attributes?: Record<string, string>;
  /** `spec.filters`; wins over `attributes` when both are set. */
  filters?: SubscriptionsApiFilter[];
  subscriber: Destination;
  delivery?: DeliverySpec;
  /** Where the manifest came from, for messages. */
  file?: string;
}

export interface BrokerConfig {
  name: string;
  namespace: string;
  delivery?: DeliverySpec;
  file?: string;
}

export function toTrigger(m: TriggerManifest, file?: string): Trigger {
  return {
    name: m.metadata.name,
    namespace: m.metadata.namespace ?? 'default',
    broker: m.spec.broker,
    ...(m.spec.filter?.attributes !== undefined ? { attributes: m.spec.filter.attributes } : {}),
    ...(m.spec.filters !== undefined ? { filters: m.spec.filters } : {}),
    subscriber: m.spec.subscriber,
    ...(m.spec.delivery !== undefined ? { delivery: m.spec.delivery } : {}),
    ...(file !== undefined ? { file } : {}),
  };
}

export function triggerKey(t: Pick<Trigger, 'namespace' | 'name'>): string {
  return `${t.namespace}/${t.name}`;
}
