/**
 * Tables of the core kinds (and Lease, EndpointSlice, CustomResourceDefinition) as
 * printers.go computes them in Kubernetes 1.32.
 */
import type { KubeObject } from '../../api/types.js';
import { ageColumn, column, field, nameColumn, type KindColumns } from './columns.js';
import { CONFIG, CREATION_TIMESTAMP, ENDPOINT_SLICE, SERVICE } from './descriptions.js';
import { asArray, asRecord, formatLabels, int, rfc3339UTC, str } from './format.js';

function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return Object.keys(asRecord(value)).length;
}

export const namespaceColumns: KindColumns = {
  Name: nameColumn,
  Status: column('string', CONFIG.namespaceStatus, (o) => str(field(o, 'status', 'phase'))),
  Age: ageColumn,
};

/**
 * len(data): a real API server has already merged a written stringData into data (and never
 * stores stringData), so the keys of both count once.
 */
function secretDataCount(o: KubeObject): number {
  return new Set([...Object.keys(asRecord(o.data)), ...Object.keys(asRecord(o.stringData))]).size;
}

export const secretColumns: KindColumns = {
  Name: nameColumn,
  // the API server defaults a missing type to Opaque on create
  Type: column('string', CONFIG.secretType, (o) => str(o.type) || 'Opaque'),
  Data: column('string', CONFIG.secretData, secretDataCount),
  Age: ageColumn,
};

export const configMapColumns: KindColumns = {
  Name: nameColumn,
  Data: column('string', CONFIG.configMapData, (o) => count(o.data) + count(o.binaryData)),
  Age: ageColumn,
};

export const serviceAccountColumns: KindColumns = {
  Name: nameColumn,
  Secrets: column('string', CONFIG.serviceAccountSecrets, (o) => count(o.secrets)),
  Age: ageColumn,
};

export const leaseColumns: KindColumns = {
  Name: nameColumn,
  Holder: column('string', CONFIG.holderIdentity, (o) => str(field(o, 'spec', 'holderIdentity'))),
  Age: ageColumn,
};

/** The type of a Service; the API server defaults a missing one to ClusterIP. */
function serviceType(o: KubeObject): string {
  return str(field(o, 'spec', 'type')) || 'ClusterIP';
}

/** loadBalancerStatusStringer (wide: the server never clips): sorted unique ips or hostnames. */
function loadBalancerIngress(o: KubeObject): string[] {
  const ingress = asArray(field(o, 'status', 'loadBalancer', 'ingress')).map(asRecord);
  const values = ingress.map((i) => str(i.ip) || str(i.hostname)).filter(Boolean);
  return [...new Set(values)].sort();
}

/** getServiceExternalIP. */
function externalIP(o: KubeObject): string {
  const type = serviceType(o);
  const externalIPs = asArray(field(o, 'spec', 'externalIPs')).map(String);
  if (type === 'ClusterIP' || type === 'NodePort')
    return externalIPs.length ? externalIPs.join(',') : '<none>';
  if (type === 'ExternalName') return str(field(o, 'spec', 'externalName'));
  if (type !== 'LoadBalancer') return '<unknown>';
  const all = [...loadBalancerIngress(o), ...externalIPs];
  return all.length ? all.join(',') : '<pending>';
}

/** makePortString: port[:nodePort]/protocol, joined with ",". */
function ports(o: KubeObject): string {
  const pieces = asArray(field(o, 'spec', 'ports')).map((p) => {
    const port = asRecord(p);
    const protocol = str(port.protocol) || 'TCP';
    const nodePort = typeof port.nodePort === 'number' && port.nodePort > 0 ? `:${port.nodePort}` : '';
    return `${int(port.port)}${nodePort}/${protocol}`;
  });
  return pieces.join(',') || '<none>';
}

/** spec.clusterIPs[0]; conversion from v1 fills clusterIPs from a lone clusterIP. */
function clusterIP(o: KubeObject): string {
  return str(asArray(field(o, 'spec', 'clusterIPs'))[0]) || str(field(o, 'spec', 'clusterIP')) || '<none>';
}

export const serviceColumns: KindColumns = {
  Name: nameColumn,
  Type: column('string', SERVICE.type, serviceType),
  'Cluster-IP': column('string', SERVICE.clusterIP, clusterIP),
  'External-IP': column('string', SERVICE.externalIPs, externalIP),
  'Port(s)': column('string', SERVICE.ports, ports),
  Age: ageColumn,
  Selector: column('string', SERVICE.selector, (o) => formatLabels(field(o, 'spec', 'selector'))),
};

function joinHostPort(host: string, port: unknown): string {
  return `${host.includes(':') ? `[${host}]` : host}:${int(port)}`;
}

/** formatEndpoints: ready addresses as ip:port per subset port (just ip without ports), 3 shown. */
function formatEndpoints(o: KubeObject): string {
  const subsets = asArray(o.subsets).map(asRecord);
  if (subsets.length === 0) return '<none>';
  const all: string[] = [];
  for (const subset of subsets) {
    const ips = asArray(subset.addresses).map((a) => str(asRecord(a).ip));
    const subsetPorts = asArray(subset.ports).map(asRecord);
    if (subsetPorts.length === 0) all.push(...ips);
    for (const port of subsetPorts) all.push(...ips.map((ip) => joinHostPort(ip, port.port)));
  }
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

export const endpointsColumns: KindColumns = {
  Name: nameColumn,
  Endpoints: column('string', SERVICE.subsets, formatEndpoints),
  Age: ageColumn,
};

/** listWithMoreString: the first 3, " + N more...", `<unset>` for none. */
function listWithMore(list: string[]): string {
  if (list.length > 3) return `${list.slice(0, 3).join(',')} + ${list.length - 3} more...`;
  return list.join(',') || '<unset>';
}

function slicePort(p: unknown): string {
  const port = asRecord(p);
  if (typeof port.port === 'number') return String(port.port);
  return typeof port.name === 'string' ? port.name : '*';
}

export const endpointSliceColumns: KindColumns = {
  Name: nameColumn,
  AddressType: column('string', ENDPOINT_SLICE.addressType, (o) => str(o.addressType)),
  Ports: column('string', ENDPOINT_SLICE.ports, (o) => listWithMore(asArray(o.ports).map(slicePort))),
  Endpoints: column('string', ENDPOINT_SLICE.endpoints, (o) =>
    listWithMore(asArray(o.endpoints).flatMap((e) => asArray(asRecord(e).addresses).map(String))),
  ),
  Age: ageColumn,
};

/** apiextensions serves CRDs with the default table convertor: Name and an RFC 3339 "Created At". */
export const customResourceDefinitionColumns: KindColumns = {
  Name: nameColumn,
  'Created At': column('date', CREATION_TIMESTAMP, (o) => rfc3339UTC(o.metadata.creationTimestamp)),
};
