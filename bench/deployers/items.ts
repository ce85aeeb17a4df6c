/**
 * The DeployItems of the deployers bench: mock items (the mock deployer's minimal provider
 * configuration: Succeeded, no export), and items of a type no deployer handles, sized by an
 * inline chart archive (a Helm-style `chart.archive.raw`, one string) or by many `values` keys.
 * Created with a client (never `kubectl apply`, whose last-applied annotation is the object again).
 */
import { GVK } from '../../shared/api/gvk.js';
import { LandscaperAnnotations, NO_TARGET_NAME, type DeployItem } from '../../shared/api/landscaper.js';
import type { KubeClient } from '../../shared/kube/index.js';
import { runPool, type PoolResult } from '../apiserver/pool.js';

export const MOCK_TYPE = 'landscaper.gardener.cloud/mock';
/** Not among the responsibility check's deployers (mock, manifest). */
export const UNHANDLED_TYPE = 'landscaper.gardener.cloud/helm';

export const itemName = (i: number): string => `mock-${String(i).padStart(5, '0')}`;

/**
 * A mock item as the Landscaper's execution controller creates one: with the `deployer-type` and
 * `deployer-target-name` annotations (upstream pkg/landscaper/execution, `.noTargetName` without a
 * target), so the job hand-out has no annotation to write. An item created without them (by hand)
 * costs one `patch deployitems` more.
 */
export function mockItem(namespace: string, name: string): DeployItem {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: {
      name,
      namespace,
      annotations: {
        [LandscaperAnnotations.deployerType]: MOCK_TYPE,
        [LandscaperAnnotations.deployerTargetName]: NO_TARGET_NAME,
      },
    },
    spec: {
      type: MOCK_TYPE,
      config: {
        apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
        kind: 'ProviderConfiguration',
        providerStatus: { bench: 'deployers' },
      },
    },
  };
}

/** How the bulk of a sized item is shaped. */
export type Shape = 'archive' | 'values';

function helmConfig(shape: Shape, fill: number): Record<string, unknown> {
  const base = {
    apiVersion: 'helm.deployer.landscaper.gardener.cloud/v1alpha1',
    kind: 'ProviderConfiguration',
  };
  if (shape === 'archive') return { ...base, chart: { archive: { raw: 'A'.repeat(fill) } } };
  // keys of 8 characters with 32-character values: ~46 bytes of JSON each
  const values: Record<string, string> = {};
  for (let i = 0; i * 46 < fill; i++) values[`k${String(i).padStart(7, '0')}`] = 'v'.repeat(32);
  return { ...base, chart: { ref: 'example/chart:1.0.0' }, values };
}

/** An item of UNHANDLED_TYPE whose JSON is about `bytes` long. */
export function sizedItem(namespace: string, name: string, bytes: number, shape: Shape): DeployItem {
  const item = (fill: number): DeployItem => ({
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace },
    spec: { type: UNHANDLED_TYPE, config: helmConfig(shape, fill) },
  });
  const overhead = JSON.stringify(item(0)).length;
  return item(Math.max(0, bytes - overhead));
}

/** Creates `count` items with at most `concurrency` requests in flight. */
export function createItems(
  client: KubeClient,
  count: number,
  concurrency: number,
  make: (i: number) => DeployItem,
): Promise<PoolResult> {
  return runPool(count, concurrency, async (i) => {
    await client.create(GVK.DeployItem, make(i));
  });
}
