/** discovery.k8s.io/v1 EndpointSlice (Kubernetes 1.32). */
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import {
  atomicList,
  atomicObj,
  bool,
  int32,
  kindProps,
  obj,
  objectReference,
  setList,
  str,
  strEnum,
  stringMap,
} from './schema.js';

function endpoint(): JSONSchemaProps {
  return obj(
    {
      addresses: { ...setList({ type: 'string' }), minItems: 1, maxItems: 100 },
      conditions: obj({ ready: bool(), serving: bool(), terminating: bool() }),
      deprecatedTopology: stringMap(),
      hints: obj({ forZones: atomicList(obj({ name: str() }, ['name'])) }),
      hostname: str(),
      nodeName: str(),
      targetRef: objectReference(),
      zone: str(),
    },
    ['addresses'],
  );
}

function endpointPort(): JSONSchemaProps {
  return atomicObj({
    appProtocol: str(),
    name: str(),
    port: int32(),
    protocol: strEnum(['SCTP', 'TCP', 'UDP']),
  });
}

export function endpointSliceDef(): ResourceDef {
  return {
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    listKind: 'EndpointSliceList',
    plural: 'endpointslices',
    singular: 'endpointslice',
    shortNames: [],
    categories: [],
    namespaced: true,
    schema: obj(
      kindProps({
        addressType: strEnum(['IPv4', 'IPv6', 'FQDN']),
        // Go serialises empty endpoints/ports as null (the fields are not omitempty).
        endpoints: { ...atomicList(endpoint()), nullable: true, maxItems: 1000 },
        ports: { ...atomicList(endpointPort()), nullable: true, maxItems: 100 },
      }),
      ['addressType'],
    ),
    subresources: {},
    printerColumns: [
      fieldColumn('AddressType', '.addressType'),
      computedColumn(
        'Ports',
        '.ports[*].port',
        'port numbers joined with "," (unset port: <unset>), or <unset>',
      ),
      computedColumn(
        'Endpoints',
        '.endpoints[*].addresses[*]',
        'addresses of all endpoints, the first 3 joined with "," and " + N more..." for the rest, or <unset>',
      ),
      ageColumn(),
    ],
    builtin: true,
  };
}
