/** core/v1 Pod (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import { openNamed, podSpec } from './pod-spec.js';
import {
  atomicList,
  conditionList,
  kindProps,
  mapList,
  mergeAtomicList,
  obj,
  str,
  strEnum,
  time,
} from './schema.js';

function podStatus(): JSONSchemaProps {
  const containerStatuses = (): JSONSchemaProps => atomicList(openNamed('ContainerStatus'));
  const ip = (): JSONSchemaProps => obj({ ip: str() }, ['ip']);
  return obj({
    conditions: conditionList({ lastProbeTime: time() }),
    containerStatuses: containerStatuses(),
    ephemeralContainerStatuses: containerStatuses(),
    hostIP: str(),
    hostIPs: mergeAtomicList(ip(), 'ip'),
    initContainerStatuses: containerStatuses(),
    message: str(),
    nominatedNodeName: str(),
    phase: strEnum(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']),
    podIP: str(),
    podIPs: mapList(ip(), ['ip']),
    qosClass: strEnum(['BestEffort', 'Burstable', 'Guaranteed']),
    reason: str(),
    resize: str('Deprecated in favour of pod conditions (InPlacePodVerticalScaling).'),
    resourceClaimStatuses: mapList(obj({ name: str(), resourceClaimName: str() }, ['name']), ['name'], {
      strategy: 'merge,retainKeys',
    }),
    startTime: time(),
  });
}

export function podDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Pod',
    listKind: 'PodList',
    plural: 'pods',
    singular: 'pod',
    shortNames: ['po'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: podSpec(), status: podStatus() })),
    subresources: { status: true },
    printerColumns: [
      computedColumn(
        'Ready',
        '.status.containerStatuses[*].ready',
        'ready containers/all containers (restartable init containers count as containers), e.g. 1/1',
      ),
      computedColumn(
        'Status',
        '.status.phase',
        'status.reason, else the waiting/terminated reason of the first unready container ' +
          '(Init:<reason>, Init:N/M while init containers run), Completed, NotReady, or Terminating ' +
          'when deletionTimestamp is set; falls back to status.phase',
      ),
      computedColumn(
        'Restarts',
        '.status.containerStatuses[*].restartCount',
        'sum of restartCount over containers, with " (<age> ago)" of the latest termination when > 0',
      ),
      ageColumn(),
      fieldColumn('IP', '.status.podIP', 'string', 1),
      fieldColumn('Node', '.spec.nodeName', 'string', 1),
      fieldColumn('Nominated Node', '.status.nominatedNodeName', 'string', 1),
      computedColumn(
        'Readiness Gates',
        '.spec.readinessGates[*].conditionType',
        'gates whose condition is True/all readiness gates, or <none>',
        1,
      ),
    ],
    builtin: true,
  };
}
