/** core/v1 Namespace, Secret, ConfigMap and ServiceAccount (Kubernetes 1.32). */
import type { ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import {
  atomicList,
  bool,
  bytesMap,
  conditionList,
  kindProps,
  localObjectReference,
  mapList,
  obj,
  objectReference,
  str,
  stringList,
  stringMap,
  strEnum,
} from './schema.js';

export function namespaceDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    plural: 'namespaces',
    singular: 'namespace',
    shortNames: ['ns'],
    categories: [],
    namespaced: false,
    schema: obj(
      kindProps({
        spec: obj({ finalizers: stringList() }),
        status: obj({ conditions: conditionList(), phase: strEnum(['Active', 'Terminating']) }),
      }),
    ),
    subresources: { status: true },
    printerColumns: [fieldColumn('Status', '.status.phase'), ageColumn()],
    builtin: true,
  };
}

export function secretDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Secret',
    listKind: 'SecretList',
    plural: 'secrets',
    singular: 'secret',
    shortNames: [],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        data: bytesMap(),
        immutable: bool(),
        stringData: stringMap(),
        type: str('Free-form; well-known values include Opaque and kubernetes.io/tls. Defaults to Opaque.'),
      }),
    ),
    subresources: {},
    printerColumns: [
      fieldColumn('Type', '.type'),
      computedColumn('Data', '.data', 'number of keys in data'),
      ageColumn(),
    ],
    builtin: true,
  };
}

export function configMapDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    plural: 'configmaps',
    singular: 'configmap',
    shortNames: ['cm'],
    categories: [],
    namespaced: true,
    schema: obj(kindProps({ binaryData: bytesMap(), data: stringMap(), immutable: bool() })),
    subresources: {},
    printerColumns: [
      computedColumn('Data', '.data', 'number of keys in data plus number of keys in binaryData'),
      ageColumn(),
    ],
    builtin: true,
  };
}

export function serviceAccountDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    shortNames: ['sa'],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        automountServiceAccountToken: bool(),
        imagePullSecrets: atomicList(localObjectReference()),
        secrets: mapList(objectReference(), ['name']),
      }),
    ),
    subresources: {},
    printerColumns: [computedColumn('Secrets', '.secrets', 'number of entries in secrets'), ageColumn()],
    builtin: true,
  };
}
