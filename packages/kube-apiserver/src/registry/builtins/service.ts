/** core/v1 Service and Endpoints (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import {
  atomicList,
  atomicObj,
  bool,
  int32,
  intOrString,
  kindProps,
  mapList,
  metaConditionList,
  obj,
  objectReference,
  str,
  strEnum,
  stringList,
  stringMap,
} from './schema.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;

function servicePort(): JSONSchemaProps {
  return obj(
    {
      appProtocol: str(),
      name: str(),
      nodePort: int32(),
      port: int32(),
      protocol: { ...strEnum(PROTOCOLS), default: 'TCP' },
      targetPort: intOrString(),
    },
    ['port'],
  );
}

function serviceSpec(): JSONSchemaProps {
  const trafficPolicy = (): JSONSchemaProps => strEnum(['Cluster', 'Local']);
  return obj({
    allocateLoadBalancerNodePorts: bool(),
    clusterIP: str(),
    clusterIPs: stringList(),
    externalIPs: stringList(),
    externalName: str(),
    externalTrafficPolicy: trafficPolicy(),
    healthCheckNodePort: int32(),
    internalTrafficPolicy: trafficPolicy(),
    ipFamilies: atomicList(strEnum(['IPv4', 'IPv6'])),
    ipFamilyPolicy: strEnum(['SingleStack', 'PreferDualStack', 'RequireDualStack']),
    loadBalancerClass: str(),
    loadBalancerIP: str(),
    loadBalancerSourceRanges: stringList(),
    ports: mapList(servicePort(), ['port', 'protocol']),
    publishNotReadyAddresses: bool(),
    selector: stringMap(true),
    sessionAffinity: strEnum(['ClientIP', 'None']),
    sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: int32() }) }),
    trafficDistribution: str(),
    type: strEnum(['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']),
  });
}

function serviceStatus(): JSONSchemaProps {
  const portStatus = obj({ error: str(), port: int32(), protocol: strEnum(PROTOCOLS) }, ['port', 'protocol']);
  const ingress = obj({
    hostname: str(),
    ip: str(),
    ipMode: strEnum(['VIP', 'Proxy']),
    ports: atomicList(portStatus),
  });
  return obj({ conditions: metaConditionList(), loadBalancer: obj({ ingress: atomicList(ingress) }) });
}

export function serviceDef(): ResourceDef {
  return {
    group: '',
    version: 'v1',
    kind: 'Service',
    listKind: 'ServiceList',
    plural: 'services',
    singular: 'service',
    shortNames: ['svc'],
    categories: ['all'],
    namespaced: true,
    schema: obj(kindProps({ spec: serviceSpec(), status: serviceStatus() })),
    subresources: { status: true },
    printerColumns: [
      fieldColumn('Type', '.spec.type'),
      fieldColumn('Cluster-IP', '.spec.clusterIP'),
      computedColumn(
        'External-IP',
        '.spec.externalIPs',
        'ExternalName: spec.externalName; LoadBalancer: status.loadBalancer.ingress ip/hostname plus ' +
          'spec.externalIPs, or <pending>; otherwise spec.externalIPs joined with ",", or <none>',
      ),
      computedColumn(
        'Port(s)',
        '.spec.ports',
        'each port as port[:nodePort]/protocol joined with ",", or <none>',
      ),
      ageColumn(),
      computedColumn(
        'Selector',
        '.spec.selector',
        'spec.selector as k=v pairs joined with ",", or <none>',
        1,
      ),
    ],
    builtin: true,
  };
}

function endpointAddress(): JSONSchemaProps {
  return atomicObj({ hostname: str(), ip: str(), nodeName: str(), targetRef: objectReference() }, ['ip']);
}

function endpointPort(): JSONSchemaProps {
  return atomicObj({ appProtocol: str(), name: str(), port: int32(), protocol: strEnum(PROTOCOLS) }, [
    'port',
  ]);
}

export function endpointsDef(): ResourceDef {
  const subset = obj({
    addresses: atomicList(endpointAddress()),
    notReadyAddresses: atomicList(endpointAddress()),
    ports: atomicList(endpointPort()),
  });
  return {
    group: '',
    version: 'v1',
    kind: 'Endpoints',
    listKind: 'EndpointsList',
    plural: 'endpoints',
    singular: 'endpoints',
    shortNames: ['ep'],
    categories: [],
    namespaced: true,
    schema: obj(kindProps({ subsets: atomicList(subset) })),
    subresources: {},
    printerColumns: [
      computedColumn(
        'Endpoints',
        '.subsets[*].addresses[*].ip',
        'ready addresses as ip:port for every subset port, the first 3 joined with "," and ' +
          '" + N more..." for the rest, or <none>',
      ),
      ageColumn(),
    ],
    builtin: true,
  };
}
