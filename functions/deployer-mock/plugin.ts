/**
 * The mock deployer (`landscaper.gardener.cloud/mock`), as upstream's: its provider configuration
 * (`mock.deployer.landscaper.gardener.cloud/v1alpha1` ProviderConfiguration) says what the item's
 * status becomes — `phase` (overrides everything), `initialPhase` (applied only while the phase is
 * empty or Init, and then the default Succeeded does not apply), `providerStatus` (copied),
 * `export` (any JSON, written to a Secret owned by the item under key `config`; `status.exportRef`)
 * and `continuousReconcile` (read by the continuous-reconcile hook). Delete removes the export
 * Secret.
 *
 * One difference from upstream: the export Secret is named `mock-export-<item uid>` instead of
 * `generateName: mock-export-`, so a step that is retried after the Secret was created (a replica
 * killed before its status write) finds the same Secret instead of creating a second one.
 */
import * as z from '../../shared/config/zod.js';
import { GVK } from '../../shared/api/gvk.js';
import {
  DEPLOY_ITEM_PHASES,
  DeployerTypes,
  type DeployItem,
  type DeployItemPhase,
} from '../../shared/api/landscaper.js';
import { issueLines } from '../../shared/config/index.js';
import {
  DeployerError,
  type DeployerPlugin,
  type StepContext,
  type StepResult,
} from '../../shared/deployer/types.js';
import { isNotFound } from '../../shared/kube/index.js';
import { writeExportSecret, type SecretLocation } from '../../shared/deployer/export-secret.js';

export const MOCK_CONFIG_API_VERSION = 'mock.deployer.landscaper.gardener.cloud/v1alpha1';

const phase = z.enum(DEPLOY_ITEM_PHASES);

export const MockProviderConfigSchema = z.object({
  apiVersion: z.literal(MOCK_CONFIG_API_VERSION).optional(),
  kind: z.literal('ProviderConfiguration').optional(),
  phase: phase.optional(),
  initialPhase: phase.optional(),
  providerStatus: z.record(z.string(), z.unknown()).optional(),
  export: z.unknown().optional(),
  continuousReconcile: z.object({ every: z.string().optional(), cron: z.string().optional() }).optional(),
});
export type MockProviderConfig = z.output<typeof MockProviderConfigSchema>;

/** The item's provider configuration, or a configuration error with every problem. */
export function parseMockConfig(item: DeployItem): MockProviderConfig {
  const parsed = MockProviderConfigSchema.safeParse(item.spec.config ?? {});
  if (parsed.success) return parsed.data;
  throw new DeployerError(
    'Reconcile',
    'ProviderConfigurationInvalid',
    `invalid mock provider configuration: ${issueLines(parsed.error).join('; ')}`,
    ['ERR_CONFIGURATION_PROBLEM'],
  );
}

/** The phase the step ends in (pure): upstream's order of initialPhase, default Succeeded, phase. */
export function mockPhase(config: MockProviderConfig, current: DeployItemPhase | undefined): DeployItemPhase {
  let next: DeployItemPhase | undefined = current;
  if (config.initialPhase !== undefined) {
    if (current === undefined || current === 'Init') next = config.initialPhase;
  } else {
    next = 'Succeeded';
  }
  if (config.phase !== undefined) next = config.phase;
  return next ?? 'Succeeded';
}

export function exportSecretName(item: DeployItem): string {
  return `mock-export-${item.metadata?.uid ?? item.metadata?.name ?? 'unknown'}`;
}

/** Where the export Secret is: the item's exportRef, else `mock-export-<uid>` in its namespace. */
function exportLocation(item: DeployItem): SecretLocation {
  const ref = item.status?.exportRef;
  return {
    name: ref?.name ?? exportSecretName(item),
    namespace: ref?.namespace ?? item.metadata?.namespace ?? 'default',
  };
}

async function reconcile(ctx: StepContext): Promise<StepResult> {
  const config = parseMockConfig(ctx.item);
  const exportRef =
    config.export !== undefined
      ? await writeExportSecret(ctx.hostClient, ctx.item, config.export, exportLocation(ctx.item))
      : undefined;
  return {
    kind: 'done',
    phase: mockPhase(config, ctx.item.status?.phase),
    ...(config.providerStatus !== undefined ? { providerStatus: config.providerStatus } : {}),
    ...(exportRef !== undefined ? { exportRef } : {}),
  };
}

async function remove(ctx: StepContext): Promise<StepResult> {
  const ref = ctx.item.status?.exportRef;
  if (ref) {
    try {
      await ctx.hostClient.delete(GVK.Secret, {
        namespace: ref.namespace ?? ctx.item.metadata?.namespace,
        name: ref.name,
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return { kind: 'done', exportRef: null };
}

export function createMockDeployer(): DeployerPlugin {
  return { type: DeployerTypes.mock, name: 'mock', reconcile, delete: remove };
}
