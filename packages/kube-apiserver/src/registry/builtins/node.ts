/** core/v1 Node (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import {
  atomicList,
  bool,
  conditionList,
  int32,
  int64,
  kindProps,
  mapList,
  obj,
  open,
  quantityMap,
  setList,
  str,
  strEnum,
  stringList,
  time,
} from './schema.js';

function nodeSpec(): JSONSchemaProps {
  const taint = obj(
    {
      effect: strEnum(['NoExecute', 'NoSchedule', 'PreferNoSchedule']),
      key: str(),
      timeAdded: time(),
      value: str(),
    },
    ['key', 'effect'],
  );
  return obj({
    configSource: open('Deprecated NodeConfigSource.'),
    externalID: str('Deprecated.'),
    podCIDR: str(),
    podCIDRs: setList({ type: 'string' }, 'merge'),
    providerID: str(),
    taints: atomicList(taint),
    unschedulable: bool(),
  });
}

function nodeStatus(): JSONSchemaProps {
  return obj({
    addresses: mapList(obj({ address: str(), type: str() }, ['type', 'address']), ['type']),
    allocatable: quantityMap(),
    capacity: quantityMap(),
    conditions: conditionList({ lastHeartbeatTime: time() }),
    config: open('NodeConfigStatus'),
    daemonEndpoints: obj({ kubeletEndpoint: obj({ Port: int32() }, ['Port']) }),
    features: obj({ supplementalGroupsPolicy: bool() }),
    images: atomicList(obj({ names: stringList(), sizeBytes: int64() })),
    nodeInfo: open('NodeSystemInfo'),
    phase: strEnum(['Pending', 'Running', 'Terminated']),
    runtimeHandlers: atomicList(open('NodeRuntimeHandler')),
    volumesAttached: atomicList(obj({ devicePath: str(), name: str() }, ['name', 'devicePath'])),
    volumesInUse: stringList(),
  });
}

export function nodeDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Node',
    listKind: 'NodeList',
    plural: 'nodes',
    singular: 'node',
    shortNames: ['no'],
    categories: [],
    namespaced: false,
    schema: obj(kindProps({ spec: nodeSpec(), status: nodeStatus() })),
    subresources: { status: true },
    printerColumns: [
      computedColumn(
        'Status',
        '.status.conditions[?(@.type=="Ready")].status',
        'Ready/NotReady/Unknown from the Ready condition, plus ",SchedulingDisabled" when spec.unschedulable',
      ),
      computedColumn(
        'Roles',
        '.metadata.labels',
        'suffixes of node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted, joined with ",", or <none>',
      ),
      ageColumn(),
      fieldColumn('Version', '.status.nodeInfo.kubeletVersion'),
      computedColumn(
        'Internal-IP',
        '.status.addresses[?(@.type=="InternalIP")].address',
        'first InternalIP address, or <none>',
        1,
      ),
      computedColumn(
        'External-IP',
        '.status.addresses[?(@.type=="ExternalIP")].address',
        'first ExternalIP address, or <none>',
        1,
      ),
      fieldColumn('OS-Image', '.status.nodeInfo.osImage', 'string', 1),
      fieldColumn('Kernel-Version', '.status.nodeInfo.kernelVersion', 'string', 1),
      fieldColumn('Container-Runtime', '.status.nodeInfo.containerRuntimeVersion', 'string', 1),
    ],
    builtin: true,
  };
}
