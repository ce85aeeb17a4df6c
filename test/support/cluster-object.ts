/**
 * A `Cluster` (extensions.gardener.cloud/v1alpha1) as gardenlet writes one per shoot into the seed:
 * the Shoot inside, reconciled, with one worker pool, for the prober's tests (functions/probe-tick).
 */
export interface ClusterObjectOptions {
  /** The Shoot's name inside (default the part of `name` after the last `--`). */
  shoot?: string;
  hibernated?: boolean;
  /** The pool's MCM settings (absent: none). */
  machineControllerManagerSettings?: Record<string, unknown>;
}

export function clusterObject(name: string, o: ClusterObjectOptions = {}): Record<string, unknown> {
  const pool = {
    name: 'pool',
    ...(o.machineControllerManagerSettings
      ? { machineControllerManagerSettings: o.machineControllerManagerSettings }
      : {}),
  };
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'Cluster',
    metadata: { name },
    spec: {
      cloudProfile: { raw: {} },
      seed: { raw: {} },
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name: o.shoot ?? name.split('--').pop(), namespace: 'garden-p' },
        spec: {
          region: 'local',
          hibernation: { enabled: o.hibernated ?? false },
          provider: { type: 'local', workers: [pool] },
        },
        status: { lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100 } },
      },
    },
  };
}
