import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import yaml from 'yaml';
import { crdFiles } from '../../shared/api/crds.js';
import { newCrdAjv, schemaAt, structuralProblems, unknownFields, type Schema } from './crd-schema-rules.js';
import * as fx from './crds.fixtures.js';

interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  priority?: number;
  description?: string;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Schema };
  subresources?: {
    status?: object;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
}

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind?: string; plural: string; singular?: string; shortNames?: string[] };
    versions: CrdVersion[];
  };
}

/** What the product ships, and which of them have a status subresource (as upstream serves them). */
const EXPECTED: Record<string, { status: boolean; scope: 'Namespaced' | 'Cluster' }> = {
  'autoscaling.landscape.dev_seedautoscalers.yaml': { status: true, scope: 'Namespaced' },
  'core.gardener.cloud_cloudprofiles.yaml': { status: false, scope: 'Cluster' },
  'core.gardener.cloud_namespacedcloudprofiles.yaml': { status: true, scope: 'Namespaced' },
  'core.gardener.cloud_projects.yaml': { status: true, scope: 'Cluster' },
  'core.gardener.cloud_seeds.yaml': { status: true, scope: 'Cluster' },
  'core.gardener.cloud_shoots.yaml': { status: true, scope: 'Namespaced' },
  'extensions.gardener.cloud_clusters.yaml': { status: true, scope: 'Cluster' },
  'landscaper.gardener.cloud_contexts.yaml': { status: false, scope: 'Namespaced' },
  'landscaper.gardener.cloud_deployitems.yaml': { status: true, scope: 'Namespaced' },
  'landscaper.gardener.cloud_syncobjects.yaml': { status: true, scope: 'Namespaced' },
  'landscaper.gardener.cloud_targets.yaml': { status: false, scope: 'Namespaced' },
  'machine.sapcloud.io_machines.yaml': { status: true, scope: 'Namespaced' },
  'seedmanagement.gardener.cloud_managedseeds.yaml': { status: true, scope: 'Namespaced' },
  'seedmanagement.gardener.cloud_managedseedsets.yaml': { status: true, scope: 'Namespaced' },
};

const UPSTREAM_DIR = fileURLToPath(new URL('../fixtures/upstream-schemas/upstream-crds/', import.meta.url));
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const COLUMN_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

function load(file: string): Crd {
  const docs = yaml.parseAllDocuments(readFileSync(file, 'utf8'));
  if (docs.length !== 1) throw new Error(`${file}: expected one YAML document, found ${docs.length}`);
  const [doc] = docs;
  if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
  return doc.toJS() as Crd;
}

const files = crdFiles();
const crds = new Map(files.map((f) => [path.basename(f), load(f)]));
const crd = (file: string): Crd => crds.get(file)!;
const version = (file: string): CrdVersion => crd(file).spec.versions[0];
const schemaOf = (file: string): Schema => version(file).schema!.openAPIV3Schema!;

const ajv = newCrdAjv();
const validators = new Map<string, ValidateFunction>();
function validatorFor(file: string): ValidateFunction {
  let fn = validators.get(file);
  if (!fn) {
    fn = ajv.compile(schemaOf(file));
    validators.set(file, fn);
  }
  return fn;
}

function errorsOf(file: string, object: unknown): string[] {
  const fn = validatorFor(file);
  return fn(object) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? e.keyword}`);
}

describe('crdFiles', () => {
  it('lists absolute paths of exactly the shipped CRDs, sorted', () => {
    expect(files.every((f) => path.isAbsolute(f) && existsSync(f))).toBe(true);
    expect(files.map((f) => path.basename(f))).toEqual(Object.keys(EXPECTED).sort());
  });
});

describe.each(Object.keys(EXPECTED))('%s', (file) => {
  it('is a v1 CustomResourceDefinition whose names agree with its group, plural and file name', () => {
    const { apiVersion, kind, metadata, spec } = crd(file);
    const { names } = spec;
    expect([apiVersion, kind]).toEqual(['apiextensions.k8s.io/v1', 'CustomResourceDefinition']);
    expect(metadata.name).toBe(`${names.plural}.${spec.group}`);
    expect(file).toBe(`${spec.group}_${names.plural}.yaml`);
    expect(names.kind).toMatch(/^[A-Z][A-Za-z0-9]*$/);
    expect(names.listKind).toBe(`${names.kind}List`);
    expect(names.singular).toBe(names.kind.toLowerCase());
    expect(names.plural).toMatch(/^[a-z][a-z0-9]*$/);
    for (const short of names.shortNames ?? []) expect(short).toMatch(/^[a-z][a-z0-9]*$/);
    expect(spec.scope).toBe(EXPECTED[file].scope);
  });

  it('has exactly one version, served and stored, with a schema', () => {
    const { versions } = crd(file).spec;
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ served: true, storage: true });
    expect(versions[0].name).toMatch(/^v\d+((alpha|beta)\d+)?$/);
    expect(versions[0].schema?.openAPIV3Schema).toBeDefined();
  });

  it('has a structural schema', () => {
    expect(structuralProblems(schemaOf(file))).toEqual([]);
  });

  it('compiles with ajv (strict about unknown keywords)', () => {
    expect(() => validatorFor(file)).not.toThrow();
  });

  it('has valid printer columns pointing at fields of the schema', () => {
    const columns = version(file).additionalPrinterColumns ?? [];
    expect(new Set(columns.map((c) => c.name)).size).toBe(columns.length);
    for (const c of columns) {
      expect(COLUMN_TYPES).toContain(c.type);
      if (c.format !== undefined) expect(COLUMN_FORMATS).toContain(c.format);
      expect(c.priority ?? 0).toBeGreaterThanOrEqual(0);
      expect(c.jsonPath.startsWith('.')).toBe(true);
      if (/^(\.[A-Za-z0-9_-]+)+$/.test(c.jsonPath) && !c.jsonPath.startsWith('.metadata.')) {
        expect([c.name, schemaAt(schemaOf(file), c.jsonPath)?.type]).toEqual([c.name, expect.any(String)]);
      }
    }
  });

  it('has the subresources upstream serves', () => {
    const subresources = version(file).subresources ?? {};
    expect(subresources.status !== undefined).toBe(EXPECTED[file].status);
    const scale = subresources.scale;
    if (scale) {
      expect(schemaAt(schemaOf(file), scale.specReplicasPath)?.type).toBe('integer');
      expect(schemaAt(schemaOf(file), scale.statusReplicasPath)?.type).toBe('integer');
      if (scale.labelSelectorPath)
        expect(schemaAt(schemaOf(file), scale.labelSelectorPath)?.type).toBe('string');
    }
  });
});

describe('the set of CRDs', () => {
  it('has no short name twice', () => {
    const shorts = [...crds.values()].flatMap((c) => c.spec.names.shortNames ?? []);
    expect(new Set(shorts).size).toBe(shorts.length);
  });

  it('gives ManagedSeedSet a scale subresource on spec.replicas / status.replicas', () => {
    expect(version('seedmanagement.gardener.cloud_managedseedsets.yaml').subresources?.scale).toMatchObject({
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
    });
  });

  const upstream = Object.keys(EXPECTED).filter((f) => existsSync(path.join(UPSTREAM_DIR, f)));
  it('has the six upstream CRDs (test/fixtures/upstream-schemas) to compare with', () => {
    expect(upstream).toHaveLength(6);
  });
  it.each(upstream)('keeps the upstream CRD %s as published', (file) => {
    const published = yaml.parse(readFileSync(path.join(UPSTREAM_DIR, file), 'utf8')) as Crd;
    expect(crd(file)).toEqual(published);
  });
});

describe('upstream-shaped objects', () => {
  it.each(fx.ACCEPTED)('%s accepts a %s', (file, _name, object) => {
    expect(errorsOf(file, object)).toEqual([]);
    expect(unknownFields(schemaOf(file), object)).toEqual([]);
  });

  it('every CRD has an accepted fixture', () => {
    expect(new Set(fx.ACCEPTED.map(([file]) => file))).toEqual(new Set(Object.keys(EXPECTED)));
  });

  it('reports fields a schema does not know (what the server prunes)', () => {
    const typo = { ...fx.seed, spec: { ...fx.seed.spec, provider: { ...fx.seed.spec.provider, zone: 'b' } } };
    expect(unknownFields(schemaOf('core.gardener.cloud_seeds.yaml'), typo)).toEqual(['spec.provider.zone']);
  });
});

type Mutation = [name: string, file: string, object: unknown, errorAt: string];

const clone = <T>(o: T): T => structuredClone(o);
function mutate<T>(object: T, change: (copy: T) => void): T {
  const copy = clone(object);
  change(copy);
  return copy;
}

const WRONG: Mutation[] = [
  [
    'DeployItem spec.type as a number',
    'landscaper.gardener.cloud_deployitems.yaml',
    mutate(fx.deployItemMock, (d) => Object.assign(d.spec, { type: 42 })),
    '/spec/type',
  ],
  [
    'DeployItem status without observedGeneration',
    'landscaper.gardener.cloud_deployitems.yaml',
    mutate(fx.deployItemMock, (d) => Object.assign(d, { status: { phase: 'Init' } })),
    '/status',
  ],
  [
    'Shoot worker maximum as a word',
    'core.gardener.cloud_shoots.yaml',
    mutate(fx.shoot, (s) => Object.assign(s.spec.provider.workers[0], { maximum: 'three' })),
    '/spec/provider/workers/0/maximum',
  ],
  [
    'Shoot worker without machine type',
    'core.gardener.cloud_shoots.yaml',
    mutate(fx.shoot, (s) =>
      Object.assign(s.spec.provider.workers[0], { machine: { architecture: 'amd64' } }),
    ),
    '/spec/provider/workers/0/machine',
  ],
  [
    'Shoot nodeMonitorGracePeriod not a duration',
    'core.gardener.cloud_shoots.yaml',
    mutate(fx.shoot, (s) =>
      Object.assign(s.spec.kubernetes.kubeControllerManager, { nodeMonitorGracePeriod: '40 seconds' }),
    ),
    '/spec/kubernetes/kubeControllerManager/nodeMonitorGracePeriod',
  ],
  [
    'Shoot hibernation.enabled as a string',
    'core.gardener.cloud_shoots.yaml',
    mutate(fx.shoot, (s) => Object.assign(s.spec.hibernation, { enabled: 'yes' })),
    '/spec/hibernation/enabled',
  ],
  [
    'Shoot with an unknown purpose',
    'core.gardener.cloud_shoots.yaml',
    mutate(fx.shoot, (s) => Object.assign(s.spec, { purpose: 'prod' })),
    '/spec/purpose',
  ],
  [
    'Seed allocatable that is no quantity',
    'core.gardener.cloud_seeds.yaml',
    mutate(fx.seed, (s) => Object.assign(s.status.allocatable, { shoots: 'lots' })),
    '/status/allocatable/shoots',
  ],
  [
    'Seed capacity as an object',
    'core.gardener.cloud_seeds.yaml',
    mutate(fx.seed, (s) => Object.assign(s.status.capacity, { shoots: { value: 250 } })),
    '/status/capacity/shoots',
  ],
  [
    'Seed scheduling.visible as a string',
    'core.gardener.cloud_seeds.yaml',
    mutate(fx.seed, (s) => Object.assign(s.spec.settings.scheduling, { visible: 'true' })),
    '/spec/settings/scheduling/visible',
  ],
  [
    'Seed without provider region',
    'core.gardener.cloud_seeds.yaml',
    mutate(fx.seed, (s) => Object.assign(s.spec, { provider: { type: 'gcp' } })),
    '/spec/provider',
  ],
  [
    'ManagedSeedSet replicas as a string',
    'seedmanagement.gardener.cloud_managedseedsets.yaml',
    mutate(fx.managedSeedSet, (m) => Object.assign(m.spec, { replicas: '2' })),
    '/spec/replicas',
  ],
  [
    'ManagedSeedSet pendingReplica.since not a timestamp',
    'seedmanagement.gardener.cloud_managedseedsets.yaml',
    mutate(fx.managedSeedSet, (m) => Object.assign(m.status.pendingReplica, { since: 'yesterday' })),
    '/status/pendingReplica/since',
  ],
  [
    'ManagedSeedSet with an unknown update strategy',
    'seedmanagement.gardener.cloud_managedseedsets.yaml',
    mutate(fx.managedSeedSet, (m) => Object.assign(m.spec.updateStrategy, { type: 'Recreate' })),
    '/spec/updateStrategy/type',
  ],
  [
    'ManagedSeedSet shoot template worker minimum as a string',
    'seedmanagement.gardener.cloud_managedseedsets.yaml',
    mutate(fx.managedSeedSet, (m) =>
      Object.assign(m.spec.shootTemplate.spec.provider.workers[0], { minimum: '1' }),
    ),
    '/spec/shootTemplate/spec/provider/workers/0/minimum',
  ],
  [
    'ManagedSeed without spec.shoot.name',
    'seedmanagement.gardener.cloud_managedseeds.yaml',
    mutate(fx.managedSeed, (m) => Object.assign(m.spec, { shoot: {} })),
    '/spec/shoot',
  ],
  [
    'ManagedSeed with an unknown bootstrap mode',
    'seedmanagement.gardener.cloud_managedseeds.yaml',
    mutate(fx.managedSeed, (m) => Object.assign(m.spec.gardenlet, { bootstrap: 'Token' })),
    '/spec/gardenlet/bootstrap',
  ],
  [
    'SeedAutoscaler target of another kind',
    'autoscaling.landscape.dev_seedautoscalers.yaml',
    mutate(fx.seedAutoscaler, (a) => Object.assign(a.spec.scaleTargetRef, { kind: 'Deployment' })),
    '/spec/scaleTargetRef/kind',
  ],
  [
    'SeedAutoscaler maxReplicas as a string',
    'autoscaling.landscape.dev_seedautoscalers.yaml',
    mutate(fx.seedAutoscaler, (a) => Object.assign(a.spec, { maxReplicas: '5' })),
    '/spec/maxReplicas',
  ],
  [
    'SeedAutoscaler metric target of an unknown type',
    'autoscaling.landscape.dev_seedautoscalers.yaml',
    mutate(fx.seedAutoscaler, (a) => Object.assign(a.spec.metrics[0].resource.target, { type: 'Value' })),
    '/spec/metrics/0/resource/target/type',
  ],
  [
    'SeedAutoscaler scale-down policy without a period',
    'autoscaling.landscape.dev_seedautoscalers.yaml',
    mutate(fx.seedAutoscaler, (a) =>
      Object.assign(a.spec.behavior.scaleDown, { policies: [{ type: 'Pods', value: 1 }] }),
    ),
    '/spec/behavior/scaleDown/policies/0',
  ],
  [
    'Machine phase as a number',
    'machine.sapcloud.io_machines.yaml',
    mutate(fx.machine, (m) => Object.assign(m.status.currentStatus, { phase: 3 })),
    '/status/currentStatus/phase',
  ],
];

describe('wrongly typed objects', () => {
  it.each(WRONG)('rejects %s', (_name, file, object, errorAt) => {
    const errors = errorsOf(file, object);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => e.startsWith(`${errorAt} `))).toBe(true);
  });

  it('accepts a quantity written as a number and as a string', () => {
    const asNumber = mutate(fx.seed, (s) => Object.assign(s.status.allocatable, { shoots: 240 }));
    expect(errorsOf('core.gardener.cloud_seeds.yaml', asNumber)).toEqual([]);
    expect(errorsOf('core.gardener.cloud_seeds.yaml', fx.seed)).toEqual([]);
  });
});
