import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JSONSchemaProps, ResourceDef } from '../../api/types.js';
import * as core from './builtins.fixtures-core.js';
import * as fx from './builtins.fixtures.js';
import { builtinResources } from './index.js';
import { addKubernetesVocabulary } from '../validation.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const PLAIN_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
];

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strictTypes: false });
  addFormats(ajv);
  for (const keyword of PLAIN_KEYWORDS) ajv.addKeyword({ keyword });
  return addKubernetesVocabulary(ajv);
}

/** The server's reading of a schema for ajv: an object that lists properties is closed. */
function closed(node: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = { ...node };
  if (node.properties) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, closed(v)]));
    if (node.additionalProperties === undefined && !node['x-kubernetes-preserve-unknown-fields']) {
      out.additionalProperties = false;
    }
  }
  if (node.items) out.items = closed(node.items);
  if (typeof node.additionalProperties === 'object')
    out.additionalProperties = closed(node.additionalProperties);
  return out;
}

/** Every schema node with its path. */
function nodes(node: JSONSchemaProps, path = ''): [string, JSONSchemaProps][] {
  const out: [string, JSONSchemaProps][] = [[path, node]];
  for (const [k, v] of Object.entries(node.properties ?? {})) out.push(...nodes(v, `${path}.${k}`));
  if (node.items) out.push(...nodes(node.items, `${path}[*]`));
  if (typeof node.additionalProperties === 'object')
    out.push(...nodes(node.additionalProperties, `${path}{*}`));
  for (const branch of node.anyOf ?? []) out.push(...nodes(branch, `${path}|anyOf`));
  return out;
}

const defs = builtinResources();
const ajv = newAjv();
const validators = new Map<string, ValidateFunction>();

function def(kind: string): ResourceDef {
  const found = defs.find((d) => d.kind === kind);
  if (!found) throw new Error(`no built-in ${kind}`);
  return found;
}

function validate(kind: string, object: unknown): string[] {
  let fn = validators.get(kind);
  if (!fn) {
    fn = ajv.compile(closed(def(kind).schema));
    validators.set(kind, fn);
  }
  if (fn(object)) return [];
  return (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** A deep copy with `edit` applied: fixtures stay untouched. */
function variant<T>(object: T, edit: (copy: T) => void): T {
  const copy = structuredClone(object);
  edit(copy);
  return copy;
}

// Fixtures are edited freely in the negative cases.

type Json = Record<string, any>;

describe('builtinResources', () => {
  it('returns fresh definitions on every call', () => {
    const again = builtinResources();
    expect(again).toEqual(defs);
    expect(again[0]).not.toBe(defs[0]);
    expect(again[0]?.schema).not.toBe(defs[0]?.schema);
  });

  it('covers the kinds of the brief', () => {
    expect(defs.map((d) => `${d.group}/${d.version}/${d.kind}`).sort()).toEqual(
      [
        '/v1/ConfigMap',
        '/v1/Endpoints',
        '/v1/Event',
        '/v1/Namespace',
        '/v1/Node',
        '/v1/Pod',
        '/v1/ReplicationController',
        '/v1/Secret',
        '/v1/Service',
        '/v1/ServiceAccount',
        'apiextensions.k8s.io/v1/CustomResourceDefinition',
        'apps/v1/DaemonSet',
        'apps/v1/Deployment',
        'apps/v1/ReplicaSet',
        'apps/v1/StatefulSet',
        'autoscaling/v2/HorizontalPodAutoscaler',
        'coordination.k8s.io/v1/Lease',
        'discovery.k8s.io/v1/EndpointSlice',
        'rbac.authorization.k8s.io/v1/ClusterRole',
        'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
        'rbac.authorization.k8s.io/v1/Role',
        'rbac.authorization.k8s.io/v1/RoleBinding',
      ].sort(),
    );
  });

  it.each(defs.map((d) => [d.kind, d] as const))('%s names are consistent', (_kind, d) => {
    expect(d.listKind).toBe(`${d.kind}List`);
    expect(d.plural).toBe(d.plural.toLowerCase());
    expect(d.singular).toBe(d.singular.toLowerCase());
    expect(d.singular).toBe(d.kind.toLowerCase());
    for (const name of [...d.shortNames, ...d.categories]) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(d.builtin).toBe(true);
  });

  it('has unique plurals and kinds per group and unique short names overall', () => {
    const plurals = defs.map((d) => `${d.group}/${d.plural}`);
    const kinds = defs.map((d) => `${d.group}/${d.kind}`);
    const shortNames = defs.flatMap((d) => d.shortNames);
    expect(new Set(plurals).size).toBe(plurals.length);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    expect(shortNames.filter((s) => defs.some((d) => d.plural === s || d.singular === s))).toEqual([]);
  });

  it('gives the short names, categories and scopes of a 1.32 server', () => {
    const summary = Object.fromEntries(
      defs.map((d) => [
        d.plural,
        `${d.shortNames.join(',')}|${d.categories.join(',')}|${d.namespaced ? 'ns' : 'cluster'}`,
      ]),
    );
    expect(summary).toEqual({
      namespaces: 'ns||cluster',
      secrets: '||ns',
      configmaps: 'cm||ns',
      services: 'svc|all|ns',
      serviceaccounts: 'sa||ns',
      pods: 'po|all|ns',
      replicationcontrollers: 'rc|all|ns',
      endpoints: 'ep||ns',
      events: 'ev||ns',
      nodes: 'no||cluster',
      endpointslices: '||ns',
      leases: '||ns',
      deployments: 'deploy|all|ns',
      replicasets: 'rs|all|ns',
      statefulsets: 'sts|all|ns',
      daemonsets: 'ds|all|ns',
      horizontalpodautoscalers: 'hpa|all|ns',
      customresourcedefinitions: 'crd,crds|api-extensions|cluster',
      clusterroles: '||cluster',
      clusterrolebindings: '||cluster',
      roles: '||ns',
      rolebindings: '||ns',
    });
  });

  it.each(defs.map((d) => [d.kind, d] as const))('%s subresources match the schema', (_kind, d) => {
    const props = d.schema.properties ?? {};
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
    if (d.subresources.status) expect(props.status).toBeDefined();
    if (d.subresources.scale) {
      expect(d.subresources.scale).toEqual({
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      });
      expect(props.spec?.properties?.replicas).toEqual({ type: 'integer', format: 'int32', default: 1 });
    }
  });

  it('serves status and scale subresources exactly where Kubernetes does', () => {
    const withStatus = defs.filter((d) => d.subresources.status).map((d) => d.kind);
    const withScale = defs.filter((d) => d.subresources.scale).map((d) => d.kind);
    expect(withStatus.sort()).toEqual(
      [
        'CustomResourceDefinition',
        'DaemonSet',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Namespace',
        'Node',
        'Pod',
        'ReplicaSet',
        'ReplicationController',
        'Service',
        'StatefulSet',
      ].sort(),
    );
    expect(withScale.sort()).toEqual(['Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet']);
  });

  it.each(defs.map((d) => [d.kind, d] as const))('%s printer columns are well formed', (_kind, d) => {
    const names = d.printerColumns.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const column of d.printerColumns) {
      expect(column.jsonPath).toMatch(/^\./);
      if (column.description !== undefined) expect(column.description).toMatch(/^computed: \S/);
    }
  });

  it('prints the columns kubectl shows on a real cluster', () => {
    const columns = (kind: string, wide = false): string =>
      def(kind)
        .printerColumns.filter((c) => wide || !c.priority)
        .map((c) => c.name.toUpperCase())
        .join(' ');
    expect(columns('Deployment')).toBe('READY UP-TO-DATE AVAILABLE AGE');
    expect(columns('Deployment', true)).toBe('READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR');
    expect(columns('Pod')).toBe('READY STATUS RESTARTS AGE');
    expect(columns('Pod', true)).toBe('READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES');
    expect(columns('ConfigMap')).toBe('DATA AGE');
    expect(columns('Secret')).toBe('TYPE DATA AGE');
    expect(columns('Namespace')).toBe('STATUS AGE');
    expect(columns('Service')).toBe('TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE');
    expect(columns('Lease')).toBe('HOLDER AGE');
    expect(columns('StatefulSet')).toBe('READY AGE');
    expect(columns('ReplicaSet')).toBe('DESIRED CURRENT READY AGE');
    expect(columns('ReplicationController')).toBe('DESIRED CURRENT READY AGE');
    expect(columns('ReplicationController', true)).toBe(
      'DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR',
    );
    expect(columns('DaemonSet')).toBe('DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE');
    expect(columns('DaemonSet', true)).toBe(
      'DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS IMAGES SELECTOR',
    );
    expect(columns('ServiceAccount')).toBe('SECRETS AGE');
    expect(columns('Endpoints')).toBe('ENDPOINTS AGE');
    expect(columns('EndpointSlice')).toBe('ADDRESSTYPE PORTS ENDPOINTS AGE');
    expect(columns('Node')).toBe('STATUS ROLES AGE VERSION');
    expect(columns('HorizontalPodAutoscaler')).toBe('REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE');
    expect(columns('Event')).toBe('LAST SEEN TYPE REASON OBJECT MESSAGE');
    expect(columns('CustomResourceDefinition')).toBe('CREATED AT');
    expect(def('Deployment').printerColumns[0]).toMatchObject({ jsonPath: '.status.readyReplicas' });
    expect(def('Deployment').printerColumns[0]?.description).toContain('readyReplicas/spec.replicas');
  });
});

describe('built-in schemas', () => {
  it.each(defs.map((d) => [d.kind, d] as const))('%s compiles with ajv (strict keywords)', (_kind, d) => {
    expect(() => newAjv().compile(closed(d.schema))).not.toThrow();
  });

  it.each(defs.map((d) => [d.kind, d] as const))('%s list and map extensions are consistent', (_kind, d) => {
    for (const [path, node] of nodes(d.schema)) {
      const listType = node['x-kubernetes-list-type'];
      const mergeKey = node['x-kubernetes-patch-merge-key'];
      if (listType !== undefined || mergeKey !== undefined)
        expect([path, node.type]).toEqual([path, 'array']);
      if (listType === 'map') {
        const keys = node['x-kubernetes-list-map-keys'] ?? [];
        expect([path, keys.length > 0]).toEqual([path, true]);
        for (const key of keys) {
          const item = node.items!;
          expect([path, key, item.properties?.[key] !== undefined]).toEqual([path, key, true]);
          const keyed =
            item.required?.includes(key) === true || item.properties?.[key]?.default !== undefined;
          // Upstream exception: ServiceAccount secrets are keyed by the optional ObjectReference.name.
          if (!(d.kind === 'ServiceAccount' && path === '.secrets'))
            expect([path, key, keyed]).toEqual([path, key, true]);
        }
      } else {
        expect([path, node['x-kubernetes-list-map-keys']]).toEqual([path, undefined]);
      }
      if (mergeKey !== undefined)
        expect([path, node.items?.properties?.[mergeKey] !== undefined]).toEqual([path, true]);
      if (node['x-kubernetes-map-type'] !== undefined) expect([path, node.type]).toEqual([path, 'object']);
      for (const name of node.required ?? [])
        expect([path, name, node.properties?.[name] !== undefined]).toEqual([path, name, true]);
      if (node.type === undefined) expect([path, node['x-kubernetes-int-or-string']]).toEqual([path, true]);
    }
  });

  it('publishes the strategic-merge keys kubectl apply needs', () => {
    const at = (kind: string, path: string): JSONSchemaProps => {
      const found = nodes(def(kind).schema).find(([p]) => p === path);
      if (!found) throw new Error(`${kind} has no ${path}`);
      return found[1];
    };
    const podSpec = '.spec.template.spec';
    expect(at('Deployment', `${podSpec}.containers`)['x-kubernetes-patch-merge-key']).toBe('name');
    expect(at('Deployment', `${podSpec}.containers[*].env`)['x-kubernetes-patch-merge-key']).toBe('name');
    expect(at('Deployment', `${podSpec}.containers[*].ports`)).toMatchObject({
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    });
    expect(at('Deployment', `${podSpec}.containers[*].volumeMounts`)['x-kubernetes-patch-merge-key']).toBe(
      'mountPath',
    );
    expect(at('Deployment', `${podSpec}.volumes`)['x-kubernetes-patch-strategy']).toBe('merge,retainKeys');
    expect(at('Deployment', `${podSpec}.imagePullSecrets`)['x-kubernetes-patch-merge-key']).toBe('name');
    expect(at('Deployment', `${podSpec}.tolerations`)['x-kubernetes-list-type']).toBe('atomic');
    expect(at('Deployment', '.spec.strategy')['x-kubernetes-patch-strategy']).toBe('retainKeys');
    expect(at('Deployment', '.status.conditions')['x-kubernetes-patch-merge-key']).toBe('type');
    expect(at('Deployment', '.metadata.ownerReferences')['x-kubernetes-patch-merge-key']).toBe('uid');
    expect(at('Deployment', '.metadata.finalizers')['x-kubernetes-patch-strategy']).toBe('merge');
    expect(at('Service', '.spec.ports')).toMatchObject({
      'x-kubernetes-patch-merge-key': 'port',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
    });
    expect(at('Service', '.spec.selector')['x-kubernetes-map-type']).toBe('atomic');
    expect(at('EndpointSlice', '.endpoints')['x-kubernetes-list-type']).toBe('atomic');
  });
});

describe('realistic objects validate', () => {
  it.each([
    ['Deployment', fx.deployment],
    ['Deployment', fx.deploymentWithStatus],
    ['Pod', fx.pod],
    ['Service', fx.service],
    ['Lease', fx.lease],
    ['EndpointSlice', fx.endpointSlice],
    ['EndpointSlice', fx.emptyEndpointSlice],
    ['HorizontalPodAutoscaler', fx.hpa],
    ['Secret', fx.secret],
    ['Namespace', core.namespace],
    ['ConfigMap', core.configMap],
    ['ServiceAccount', core.serviceAccount],
    ['Endpoints', core.endpoints],
    ['Event', core.event],
    ['Node', core.node],
    ['StatefulSet', core.statefulSet],
    ['ReplicationController', core.replicationController],
    ['DaemonSet', core.daemonSet],
    ['CustomResourceDefinition', core.customResourceDefinition],
  ])('%s', (kind, object) => {
    expect(validate(kind, object)).toEqual([]);
  });
});

describe('wrong objects fail', () => {
  const cases: [string, string, unknown][] = [
    ['Deployment', 'replicas: "three"', variant(fx.deployment, (d: Json) => (d.spec.replicas = 'three'))],
    ['Deployment', 'replicas: 1.5', variant(fx.deployment, (d: Json) => (d.spec.replicas = 1.5))],
    ['Deployment', 'replicas beyond int32', variant(fx.deployment, (d: Json) => (d.spec.replicas = 2 ** 31))],
    ['Deployment', 'no selector', variant(fx.deployment, (d: Json) => delete d.spec.selector)],
    ['Deployment', 'no template', variant(fx.deployment, (d: Json) => delete d.spec.template)],
    ['Deployment', 'unknown spec field', variant(fx.deployment, (d: Json) => (d.spec.replica = 2))],
    ['Deployment', 'unknown metadata field', variant(fx.deployment, (d: Json) => (d.metadata.label = {}))],
    [
      'Deployment',
      'container without image',
      variant(fx.deployment, (d: Json) => delete d.spec.template.spec.containers[0].image),
    ],
    [
      'Deployment',
      'strategy type Blue',
      variant(fx.deployment, (d: Json) => (d.spec.strategy = { type: 'Blue' })),
    ],
    ['Deployment', 'label value a number', variant(fx.deployment, (d: Json) => (d.metadata.labels.tier = 1))],
    ['Pod', 'no containers', variant(fx.pod, (d: Json) => delete d.spec.containers)],
    ['Pod', 'container without name', variant(fx.pod, (d: Json) => delete d.spec.containers[0].name)],
    [
      'Pod',
      'containerPort "8080"',
      variant(fx.pod, (d: Json) => (d.spec.containers[0].ports[0].containerPort = '8080')),
    ],
    ['Pod', 'env without name', variant(fx.pod, (d: Json) => delete d.spec.containers[0].env[0].name)],
    ['Pod', 'env value a number', variant(fx.pod, (d: Json) => (d.spec.containers[0].env[0].value = 3))],
    [
      'Pod',
      'unknown container field',
      variant(fx.pod, (d: Json) => (d.spec.containers[0].imagePolicy = 'x')),
    ],
    ['Pod', 'volume without name', variant(fx.pod, (d: Json) => delete d.spec.volumes[0].name)],
    [
      'Pod',
      'unknown volume source',
      variant(fx.pod, (d: Json) => (d.spec.volumes[1] = { name: 'x', tmpfs: {} })),
    ],
    ['Pod', 'restartPolicy Sometimes', variant(fx.pod, (d: Json) => (d.spec.restartPolicy = 'Sometimes'))],
    [
      'Pod',
      'memory request 1 GB',
      variant(fx.pod, (d: Json) => (d.spec.containers[0].resources.requests.memory = '1 GB')),
    ],
    ['Service', 'type Foo', variant(fx.service, (d: Json) => (d.spec.type = 'Foo'))],
    ['Service', 'port without port', variant(fx.service, (d: Json) => delete d.spec.ports[0].port)],
    ['Service', 'targetPort true', variant(fx.service, (d: Json) => (d.spec.ports[0].targetPort = true))],
    [
      'Lease',
      'leaseDurationSeconds "15"',
      variant(fx.lease, (d: Json) => (d.spec.leaseDurationSeconds = '15')),
    ],
    ['Lease', 'renewTime not a time', variant(fx.lease, (d: Json) => (d.spec.renewTime = 'yesterday'))],
    ['EndpointSlice', 'no addressType', variant(fx.endpointSlice, (d: Json) => delete d.addressType)],
    [
      'EndpointSlice',
      'endpoint without addresses',
      variant(fx.endpointSlice, (d: Json) => (d.endpoints[0].addresses = [])),
    ],
    [
      'HorizontalPodAutoscaler',
      'metric without type',
      variant(fx.hpa, (d: Json) => delete d.spec.metrics[0].type),
    ],
    ['HorizontalPodAutoscaler', 'no maxReplicas', variant(fx.hpa, (d: Json) => delete d.spec.maxReplicas)],
    [
      'HorizontalPodAutoscaler',
      'target type Median',
      variant(fx.hpa, (d: Json) => (d.spec.metrics[0].resource.target.type = 'Median')),
    ],
    ['Secret', 'data not base64', variant(fx.secret, (d: Json) => (d.data.password = 's3cr3t!'))],
    ['Secret', 'data value a number', variant(fx.secret, (d: Json) => (d.data.port = 5432))],
    ['Event', 'no involvedObject', variant(core.event, (d: Json) => delete d.involvedObject)],
    ['StatefulSet', 'replicas: "three"', variant(core.statefulSet, (d: Json) => (d.spec.replicas = 'three'))],
    [
      'ReplicationController',
      'a LabelSelector as selector',
      variant(core.replicationController, (d: Json) => (d.spec.selector = { matchLabels: { app: 'nginx' } })),
    ],
    [
      'ReplicationController',
      'unknown spec field',
      variant(core.replicationController, (d: Json) => (d.spec.strategy = {})),
    ],
    ['DaemonSet', 'no selector', variant(core.daemonSet, (d: Json) => delete d.spec.selector)],
    ['DaemonSet', 'replicas', variant(core.daemonSet, (d: Json) => (d.spec.replicas = 3))],
    [
      'DaemonSet',
      'updateStrategy type Recreate',
      variant(core.daemonSet, (d: Json) => (d.spec.updateStrategy = { type: 'Recreate' })),
    ],
    ['DaemonSet', 'numberReady "3"', variant(core.daemonSet, (d: Json) => (d.status.numberReady = '3'))],
    [
      'CustomResourceDefinition',
      'scope Global',
      variant(core.customResourceDefinition, (d: Json) => (d.spec.scope = 'Global')),
    ],
  ];

  it.each(cases)('%s with %s', (kind, _what, object) => {
    expect(validate(kind, object)).not.toEqual([]);
  });

  it('keeps open subtrees open (affinity, probes, security contexts, volume sources, CRD schemas)', () => {
    const pod = variant(fx.pod, (d: Json) => {
      d.spec.affinity.nodeAffinity = { anything: { goes: true } };
      d.spec.containers[0].livenessProbe.futureField = 1;
      d.spec.volumes[0].configMap.futureField = 'x';
    });
    expect(validate('Pod', pod)).toEqual([]);
  });
});
