/**
 * The Service strategy (./service-strategy.ts, ./service-ip.ts): defaults, cluster IP and node port
 * allocation from the cluster's stored Services, validation, and what an update keeps and refuses.
 */
import type { KubeObject } from '../api/types.js';
import type { StrategyContext } from './rest-strategy.js';
import { allocateClusterIP, inServiceRange } from './service-ip.js';
import { createVia, testDef, updateVia } from './strategy-test-support.js';

const SERVICE = testDef('', 'Service', true);

const svc = (spec: Record<string, unknown>, name = 'web', namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace, uid: `uid-${name}` },
  spec: { selector: { app: 'web' }, ports: [{ port: 80 }], ...spec },
});

function cluster(...stored: KubeObject[]): StrategyContext {
  return { list: (resource) => (resource === '/services' ? stored : []) };
}

describe('service IPs', () => {
  it('allocates inside 10.96.0.0/12, never .0 or .1, and skips taken addresses', () => {
    expect(allocateClusterIP(new Set(), () => 0)).toBe('10.96.0.2');
    expect(allocateClusterIP(new Set(['10.96.0.2']), () => 0)).toBe('10.96.0.3');
    expect(inServiceRange(allocateClusterIP(new Set(), () => 0.999999999))).toBe(true);
    expect(inServiceRange('10.112.0.0')).toBe(false);
  });
});

describe('Service create', () => {
  it('reads back as on a cluster', () => {
    const out = createVia(SERVICE, svc({}), cluster()) as KubeObject;
    const spec = out.spec as Record<string, unknown>;
    expect(spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(inServiceRange(spec.clusterIP as string)).toBe(true);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(out.status).toEqual({ loadBalancer: {} });
  });

  it('gives default/kubernetes the first address, headless Services None, NodePorts a node port', () => {
    expect(createVia(SERVICE, svc({}, 'kubernetes'), cluster())).toMatchObject({
      spec: { clusterIP: '10.96.0.1' },
    });
    expect(createVia(SERVICE, svc({ clusterIP: 'None', ports: [] }), cluster())).toMatchObject({
      spec: { clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack' },
    });
    const np = createVia(SERVICE, svc({ type: 'NodePort' }), cluster()) as KubeObject;
    const port = (np.spec as { ports: Array<{ nodePort: number }> }).ports[0].nodePort;
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(port).toBeLessThanOrEqual(32767);
    expect(np.spec).toMatchObject({ externalTrafficPolicy: 'Cluster' });
    expect(
      createVia(
        SERVICE,
        svc({ type: 'ExternalName', externalName: 'example.com', selector: undefined }),
        cluster(),
      ),
    ).not.toHaveProperty('spec.clusterIP');
  });

  it.each([
    [
      'an address outside the range',
      svc({ clusterIP: '192.168.0.1' }),
      'Service "web" is invalid: spec.clusterIPs: Invalid value: ["192.168.0.1"]: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ],
    [
      'a taken address',
      svc({ clusterIP: '10.96.0.50' }),
      'spec.clusterIPs: Invalid value: ["10.96.0.50"]: failed to allocate IP 10.96.0.50: provided IP is already allocated',
    ],
    ['no ports', svc({ ports: [] }), 'spec.ports: Required value'],
    ['two unnamed ports', svc({ ports: [{ port: 80 }, { port: 81 }] }), 'spec.ports[0].name: Required value'],
    [
      'a port out of range',
      svc({ ports: [{ port: 0 }] }),
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'an unknown type',
      svc({ type: 'Magic' }),
      'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ],
    ['ExternalName without a name', svc({ type: 'ExternalName' }), 'spec.externalName: Required value'],
  ])('refuses %s', (_what, obj, message) => {
    const other = { ...svc({ clusterIP: '10.96.0.50', clusterIPs: ['10.96.0.50'] }, 'other') };
    expect(createVia(SERVICE, obj, cluster(other))).toContain(message);
  });
});

describe('Service update', () => {
  const prev = createVia(SERVICE, svc({ type: 'NodePort' }), cluster()) as KubeObject;
  const prevSpec = prev.spec as { clusterIP: string; ports: Array<{ nodePort: number }> };

  it('keeps the cluster IP and node ports a replace does not name', () => {
    const out = updateVia(
      SERVICE,
      prev,
      svc({ type: 'NodePort', ports: [{ port: 80 }] }),
      cluster(prev),
    ) as KubeObject;
    expect(out.spec).toMatchObject({
      clusterIP: prevSpec.clusterIP,
      clusterIPs: [prevSpec.clusterIP],
      ports: [{ nodePort: prevSpec.ports[0].nodePort }],
    });
  });

  it('refuses a new cluster IP', () => {
    expect(updateVia(SERVICE, prev, svc({ type: 'NodePort', clusterIP: '10.96.0.99' }), cluster(prev))).toBe(
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set',
    );
  });
});
