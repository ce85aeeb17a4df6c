/**
 * Configuration of the responsibility check (pure): which deployers it checks for, with their
 * target selectors (specs/landscaper.md "Responsibility check"), and the job hand-out (the
 * Landscaper's side of the contract, ./jobs.ts). Every problem is listed.
 *
 * ```yaml
 * handOutJobs: true           # false where a real Landscaper hands out the jobs (HAND_OUT_JOBS;
 *                             # DEPLOYITEM_TRIGGER_ENABLED, the old function's switch, still works)
 * ensureDefaultContext: true  # create the Context `default` in an item's namespace when missing
 * deployers:
 *   - name: mock                                  # the `deployertype` of the reconcile event
 *     type: landscaper.gardener.cloud/mock        # spec.type it deploys
 *     targetSelectors: []                         # none: every Target
 *     finishedJobs: continuousReconcile           # finished jobs sent only for a continuous
 *                                                 # reconcile (default); always: every event
 *   - name: manifest
 *     type: landscaper.gardener.cloud/kubernetes-manifest
 *     targetSelectors:
 *       - annotations: [{key: landscaper.gardener.cloud/environment, operator: "=", values: [dev]}]
 * sink: http://...      # usually from K_SINK
 * sinkToken: ...        # optional bearer token for the sink, usually from K_SINK_TOKEN
 * emitTimeout: 5s
 * reply: true           # the reconcile event as the answer where the broker takes replies
 * redisUrl: redis://... # usually from REDIS_URL: the open jobs sent, remembered for every instance
 * ```
 */
import * as z from '../../shared/config/zod.js';
import { SELECTION_OPERATORS } from '../../shared/api/landscaper.js';
import {
  durationSchema,
  configLoader,
  functionConfigSchema,
  withLogLevel,
} from '../../shared/config/index.js';
import { targetSelectorProblems } from '../../shared/deployer/index.js';

export const FUNCTION_NAME = 'responsibility-check';

const duration = durationSchema;

const requirement = z.strictObject({
  key: z.string().min(1),
  operator: z.enum(SELECTION_OPERATORS),
  values: z.array(z.string()).optional(),
});

const selector = z.strictObject({
  targets: z.array(z.strictObject({ name: z.string(), namespace: z.string().optional() })).optional(),
  annotations: z.array(requirement).optional(),
  labels: z.array(requirement).optional(),
});

const deployer = z.strictObject({
  name: z.string().regex(/^[a-z0-9]+$/, 'must be lowercase letters and digits (an event attribute value)'),
  type: z.string().min(1),
  targetSelectors: z.array(selector).default([]),
  /**
   * Events of an item whose job is finished: `continuousReconcile` sends them only when the item
   * wants a continuous reconcile (the product's deployers' one ShouldReconcile hook); `always`
   * sends every one (a deployer with ShouldReconcile hooks of its own).
   */
  finishedJobs: z.enum(['continuousReconcile', 'always']).default('continuousReconcile'),
});

const DEFAULT_DEPLOYERS = [
  {
    name: 'mock',
    type: 'landscaper.gardener.cloud/mock',
    targetSelectors: [],
    finishedJobs: 'continuousReconcile' as const,
  },
  {
    name: 'manifest',
    type: 'landscaper.gardener.cloud/kubernetes-manifest',
    targetSelectors: [],
    finishedJobs: 'continuousReconcile' as const,
  },
];

export const CheckConfigSchema = functionConfigSchema({
  /** Hand out jobs (./jobs.ts): the embedded landscape's Landscaper side; off where a real Landscaper runs. */
  handOutJobs: z.boolean().default(true),
  /** With the jobs: create the Context `default` in an item's namespace when missing. */
  ensureDefaultContext: z.boolean().default(true),
  /** Default: the product's own deployers, mock and manifest, for every Target. */
  deployers: z.array(deployer).min(1).default(DEFAULT_DEPLOYERS),
  sink: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL (K_SINK)' }),
  /** Bearer token for the sink (K_SINK_TOKEN; the embedded landscape's ingress); never logged. */
  sinkToken: z.string().min(1).optional(),
  emitTimeout: duration.default(5000),
  /**
   * Where the broker takes replies (`Prefer: reply`: Knative's brokers, the embedded one), the
   * reconcile event of a DeployItem event is the answer to its delivery instead of a POST to
   * K_SINK (a second one, and a resync's, are still POSTed). Off where K_SINK is not the broker
   * whose Trigger delivers to the check (a reply goes to that broker).
   */
  reply: z.boolean().default(true),
  /**
   * Redis (REDIS_URL), where the open jobs already sent are remembered for every instance of the
   * check (./sent.ts); without it each instance remembers its own.
   */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  source: z.string().min(1).default(`/apis/landscape/functions/${FUNCTION_NAME}`),
}).superRefine((config, ctx) => {
  config.deployers.forEach((d, i) => {
    for (const p of targetSelectorProblems(d.targetSelectors)) {
      ctx.addIssue({ code: 'custom', path: ['deployers', i], message: p });
    }
  });
});
export type CheckConfig = z.output<typeof CheckConfigSchema>;
export type DeployerEntry = CheckConfig['deployers'][number];

export const ENV_OVERRIDES = withLogLevel({
  K_SINK: { key: 'sink' },
  K_SINK_TOKEN: { key: 'sinkToken' },
  REDIS_URL: { key: 'redisUrl' },
  /** The name of the switch while the job hand-out was a function of its own (until stop 33). */
  DEPLOYITEM_TRIGGER_ENABLED: { key: 'handOutJobs', kind: 'boolean' },
  /** Set after the old name, so it wins when both are. */
  HAND_OUT_JOBS: { key: 'handOutJobs', kind: 'boolean' },
} as const);

export const loadConfig = configLoader(CheckConfigSchema, ENV_OVERRIDES);
