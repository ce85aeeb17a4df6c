/**
 * The manifest deployer plugin (`landscaper.gardener.cloud/kubernetes-manifest`): applies the
 * manifests of a DeployItem to its Target's cluster, keeps `managedResources` in the
 * providerStatus, waits (by requeue) for readiness and, on uninstall, deletes in the upstream
 * group order. The runtime (shared/deployer) owns phases, jobIDs, finalizer and status writes;
 * see steps.ts for what one step does, provider-config.ts for the configuration it reads and
 * provider-status.ts for what it records.
 *
 * Nothing happens at import time; the plugin holds no state between steps.
 */
import { DeployerTypes } from '../../shared/api/landscaper.js';
import {
  DeployerError,
  type DeployerPlugin,
  type StepContext,
  type StepResult,
} from '../../shared/deployer/types.js';
import {
  createKubeClient,
  kubeConfigFromTargetKubeconfig,
  TargetKubeconfigError,
  type KubeClient,
} from '../../shared/kube/index.js';
import { deleteStep, reconcileStep, type StepOptions } from './steps.js';

export { MANAGED_BY_LABEL } from './plan.js';
export { parseProviderConfig } from './provider-config.js';
export type { ManifestProviderConfig } from './provider-config.js';
export { buildProviderStatus, readProviderStatus } from './provider-status.js';
export type { ManagedResource, ManifestProviderStatus } from './provider-status.js';

export const MANIFEST_DEPLOYER_NAME = 'manifest';
export const DEFAULT_REQUEUE_AFTER_MS = 1500;
export const DEFAULT_CONCURRENCY = 8;
/** fieldManager of writes through a client built from the provider configuration's kubeconfig. */
export const FIELD_MANAGER = 'landscaper-manifest-deployer';

export interface ManifestDeployerOptions {
  /** `afterMs` of a `wait` (readiness, deletion); default 1500. */
  requeueAfterMs?: number;
  /** Dry-run every write on the server before applying anything; default true. */
  serverDryRun?: boolean;
  /** Requests in flight at a time per step; default 8. */
  concurrency?: number;
  /**
   * A client for the provider configuration's `kubeconfig` (YAML). Default: the kubeconfig is
   * checked as a Target's is (no exec, files, auth providers, impersonation) and a client made.
   */
  clientForKubeconfig?: (kubeconfigYaml: string) => KubeClient;
}

function defaultClientForKubeconfig(yaml: string): KubeClient {
  return createKubeClient(kubeConfigFromTargetKubeconfig(yaml, 'providerConfiguration.kubeconfig'), {
    fieldManager: FIELD_MANAGER,
    retryTransient: true,
  });
}

function clientFor(make: (yaml: string) => KubeClient) {
  return (ctx: StepContext, kubeconfig: string | undefined, operation: string): KubeClient => {
    if (kubeconfig !== undefined) {
      try {
        return make(kubeconfig);
      } catch (err) {
        if (!(err instanceof TargetKubeconfigError)) throw err;
        throw new DeployerError(operation, 'TargetClusterClient', err.message, ['ERR_CONFIGURATION_PROBLEM']);
      }
    }
    if (ctx.targetClient) return ctx.targetClient;
    throw new DeployerError(
      operation,
      'TargetClusterClient',
      'neither a target of type landscaper.gardener.cloud/kubernetes-cluster nor a kubeconfig is defined',
      ['ERR_CONFIGURATION_PROBLEM'],
    );
  };
}

/** The manifest deployer. */
export function createManifestDeployer(options: ManifestDeployerOptions = {}): DeployerPlugin {
  const o: StepOptions = {
    requeueAfterMs: options.requeueAfterMs ?? DEFAULT_REQUEUE_AFTER_MS,
    serverDryRun: options.serverDryRun ?? true,
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    clientFor: clientFor(options.clientForKubeconfig ?? defaultClientForKubeconfig),
  };
  return {
    type: DeployerTypes.manifest,
    name: MANIFEST_DEPLOYER_NAME,
    reconcile: (ctx: StepContext): Promise<StepResult> => reconcileStep(ctx, o),
    delete: (ctx: StepContext): Promise<StepResult> => deleteStep(ctx, o),
  };
}
