/**
 * The export Secret of a deployer (upstream landscaper pkg/deployer/lib/utils.go
 * CreateOrUpdateExport): the exported values as JSON under key `config`, owned by the DeployItem
 * (controller reference, as upstream's SetOwnerReference); created, or its data updated when it
 * differs. Where the Secret is (its name) is each deployer's own choice.
 */
import { GVK } from '../api/gvk.js';
import type { DeployItem } from '../api/landscaper.js';
import { isAlreadyExists, type KubeClient } from '../kube/index.js';
import type { JsonObject } from '@landscape/apimachinery';

/** Upstream's DataObjectSecretDataKey. */
export const EXPORT_SECRET_KEY = 'config';

export interface SecretLocation {
  name: string;
  namespace: string;
}

/** The export Secret at `at` with `values` (undefined is written as null). */
export function exportSecretAt(item: DeployItem, values: unknown, at: SecretLocation): JsonObject {
  const meta = item.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: at.name,
      namespace: at.namespace,
      ownerReferences: [
        {
          apiVersion: 'landscaper.gardener.cloud/v1alpha1',
          kind: 'DeployItem',
          name: meta.name ?? '',
          uid: meta.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    type: 'Opaque',
    data: { [EXPORT_SECRET_KEY]: Buffer.from(JSON.stringify(values ?? null)).toString('base64') },
  };
}

/** Creates the export Secret at `at`, or updates its data when it differs; where it is. */
export async function writeExportSecret(
  host: KubeClient,
  item: DeployItem,
  values: unknown,
  at: SecretLocation,
): Promise<SecretLocation> {
  const wanted = exportSecretAt(item, values, at);
  const { name, namespace } = at;
  try {
    await host.create(GVK.Secret, wanted);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await host.get<JsonObject>(GVK.Secret, namespace, name);
    if (JSON.stringify(existing.data) !== JSON.stringify(wanted.data))
      await host.mergePatch(GVK.Secret, { namespace, name }, { data: wanted.data });
  }
  return { name, namespace };
}
