/** coordination.k8s.io/v1 Lease (Kubernetes 1.32). */
import type { ResourceDef } from '../../api/types.js';
import { ageColumn, fieldColumn } from './columns.js';
import { int32, kindProps, microTime, obj, str } from './schema.js';

export function leaseDef(): ResourceDef {
  return {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    listKind: 'LeaseList',
    plural: 'leases',
    singular: 'lease',
    shortNames: [],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        spec: obj({
          acquireTime: microTime(),
          holderIdentity: str(),
          leaseDurationSeconds: int32(),
          leaseTransitions: int32(),
          preferredHolder: str('Coordinated leader election (alpha in 1.32).'),
          renewTime: microTime(),
          strategy: str('Coordinated leader election strategy, e.g. OldestEmulationVersion (alpha in 1.32).'),
        }),
      }),
    ),
    subresources: {},
    printerColumns: [fieldColumn('Holder', '.spec.holderIdentity'), ageColumn()],
    builtin: true,
  };
}
