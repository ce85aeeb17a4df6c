import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EMBEDDED_SCHEDULE_ANNOTATION,
  isKnativeKind,
  loadKnative,
  withEmbeddedSchedule,
} from './manifests.js';

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

describe('isKnativeKind', () => {
  it.each<[unknown, boolean]>([
    ['serving.knative.dev/v1', true],
    ['eventing.knative.dev/v1', true],
    ['sources.knative.dev/v1', true],
    ['sources.knative.dev/v1beta2', true],
    ['messaging.knative.dev/v1', true],
    ['v1', false],
    ['apps/v1', false],
    ['rbac.authorization.k8s.io/v1', false],
    ['apiextensions.k8s.io/v1', false],
    ['landscape.dev/v1alpha1', false],
    ['serving.knative.dev', false],
    ['knative.dev/v1', false],
    [undefined, false],
    [1, false],
  ])('%j → %s', (apiVersion, expected) => {
    expect(isKnativeKind({ apiVersion })).toBe(expected);
  });
});

describe('withEmbeddedSchedule', () => {
  const ping = (
    annotations?: Record<string, unknown>,
    spec: Record<string, unknown> | null = { schedule: '* * * * *', data: 'd' },
  ): Record<string, unknown> =>
    deepFreeze({
      apiVersion: 'sources.knative.dev/v1',
      kind: 'PingSource',
      metadata: { name: 'tick', ...(annotations ? { annotations } : {}) },
      ...(spec ? { spec } : {}),
    });

  it.each<[string, Record<string, unknown>, Record<string, unknown> | undefined]>([
    [
      'the annotation replaces the schedule, the rest of spec kept',
      ping({ [EMBEDDED_SCHEDULE_ANNOTATION]: '* * * * * *' }),
      { schedule: '* * * * * *', data: 'd' },
    ],
    [
      'a PingSource without spec gets one',
      ping({ [EMBEDDED_SCHEDULE_ANNOTATION]: '*/5 * * * * *' }, null),
      { schedule: '*/5 * * * * *' },
    ],
  ])('%s (the input is not changed)', (_, doc, spec) => {
    const before = structuredClone(doc);
    const out = withEmbeddedSchedule(doc);
    expect(out.spec).toEqual(spec);
    expect(out.metadata).toBe(doc.metadata);
    expect(doc).toEqual(before);
  });

  it.each<[string, Record<string, unknown>]>([
    ['no annotations', ping()],
    ['other annotations', ping({ 'example.com/x': 'y' })],
    ['a non-string annotation', ping({ [EMBEDDED_SCHEDULE_ANNOTATION]: 5 })],
    ['no metadata', deepFreeze({ kind: 'PingSource', spec: { schedule: '* * * * *' } })],
  ])('%s: the document itself', (_, doc) => {
    expect(withEmbeddedSchedule(doc)).toBe(doc);
  });
});

const FUNCTIONS = `
apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: fn-a-config, namespace: demo}
data: {config.yaml: "a: 1"}
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: fn-a, namespace: demo}
spec:
  template:
    metadata:
      annotations: {autoscaling.knative.dev/max-scale: "2"}
    spec:
      containers:
        - image: landscape-functions
          volumeMounts: [{name: config, mountPath: /etc/fn}]
      volumes: [{name: config, configMap: {name: fn-a-config}}]
---
apiVersion: eventing.knative.dev/v1
kind: Broker
metadata: {name: default, namespace: demo}
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: {name: to-fn-a, namespace: demo}
spec:
  broker: default
  subscriber:
    ref: {apiVersion: serving.knative.dev/v1, kind: Service, name: fn-a}
`;

const SOURCES = `
apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: watch-pods, namespace: demo}
spec:
  mode: Resource
  resources: [{apiVersion: v1, kind: Pod}]
  sink:
    ref: {apiVersion: eventing.knative.dev/v1, kind: Broker, name: default}
---
apiVersion: sources.knative.dev/v1
kind: PingSource
metadata:
  name: tick
  namespace: demo
  annotations: {landscape.dev/embedded-schedule: "* * * * * *"}
spec:
  schedule: "* * * * *"
  sink:
    ref: {apiVersion: eventing.knative.dev/v1, kind: Broker, name: default}
`;

const BROKEN = `
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: broken, namespace: demo}
spec:
  template:
    spec:
      containers: [{image: a}, {image: b}]
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: fn-a, namespace: demo}
spec:
  template:
    spec:
      containers: [{image: again}]
`;

const NESTED = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: fn-b, namespace: demo}
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: fn-b, namespace: demo}
spec:
  template:
    spec:
      containers: [{}]
`;

describe('loadKnative', () => {
  let dir: string;
  const rel = (file: string): string => relative(process.cwd(), join(dir, file));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'load-knative-'));
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'a-functions.yaml'), FUNCTIONS);
    await writeFile(join(dir, 'b-sources.yaml'), SOURCES);
    await writeFile(join(dir, 'c-broken.yaml'), BROKEN);
    await writeFile(join(dir, 'nested', 'd.yml'), NESTED);
    await writeFile(join(dir, 'notes.txt'), 'kind: Namespace\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('each kind lands in its list', async () => {
    const set = await loadKnative([dir]);
    expect(set.services.map((s) => [s.namespace, s.name, s.file])).toEqual([
      ['demo', 'fn-a', rel('a-functions.yaml')],
      ['demo', 'fn-a', rel('c-broken.yaml')],
      ['demo', 'fn-b', rel('nested/d.yml')],
    ]);
    expect(set.services[0]).toMatchObject({ maxScale: 2, configMountPath: '/etc/fn' });
    expect(set.brokers.map((b) => `${b.namespace}/${b.name}`)).toEqual(['demo/default']);
    expect(set.triggers.map((t) => `${t.namespace}/${t.name}`)).toEqual(['demo/to-fn-a']);
    expect(set.apiServerSources.map((s) => s.id)).toEqual(['demo/watch-pods']);
    expect(set.pingSources).toEqual([
      expect.objectContaining({ kind: 'PingSource', metadata: expect.objectContaining({ name: 'tick' }) }),
    ]);
    expect(set.pingSources[0].spec).toMatchObject({ schedule: '* * * * *' });
    expect(set.objects.map((o) => o.kind)).toEqual(['Namespace', 'ConfigMap', 'ServiceAccount']);
  });

  it('a broken Service and a duplicate Service are problems with their file', async () => {
    const set = await loadKnative([dir]);
    expect(set.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${rel('c-broken.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Service broken: .*exactly one container`,
        ),
      ),
      `${rel('c-broken.yaml')}: Service demo/fn-a: also defined in ${rel('a-functions.yaml')}`,
    ]);
  });

  it('a missing folder is a problem, the others are still read', async () => {
    const missing = join(dir, 'absent');
    const set = await loadKnative([missing, join(dir, 'nested')]);
    expect(set.problems).toEqual([
      expect.stringMatching(new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ENOENT`)),
    ]);
    expect(set.services.map((s) => s.name)).toEqual(['fn-b']);
  });

  it('an empty folder: nothing', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty, { recursive: true });
    expect(await loadKnative([empty])).toEqual({
      services: [],
      triggers: [],
      brokers: [],
      apiServerSources: [],
      pingSources: [],
      sinkBindings: [],
      objects: [],
      problems: [],
    });
  });

  it("the repository's knative/: K_SINK (the Broker's in-cluster address) exactly for the Services the SinkBinding selects", async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../../knative');
    const families = ['runtime', 'deployers', 'seedmanagement', 'watchdog'].map((f) => join(root, f));
    const set = await loadKnative(families);
    expect(set.problems).toEqual([]);
    expect(set.sinkBindings.map((b) => (b.metadata as { name: string }).name)).toEqual([
      'landscape-functions',
    ]);
    const sinkOf = (s: (typeof set.services)[number]): string | undefined => {
      const e = s.env.find((x) => x.name === 'K_SINK');
      return e?.from.kind === 'value' ? e.from.value : undefined;
    };
    const withSink = set.services.filter((s) => sinkOf(s) !== undefined);
    expect(withSink.map((s) => s.name).sort()).toEqual(['requeue-tick', 'responsibility-check']);
    for (const s of withSink)
      expect(sinkOf(s)).toBe(
        'http://broker-ingress.knative-eventing.svc.cluster.local/landscape-system/default',
      );
    // no downward API left for the activator to fill in
    expect(set.services.flatMap((s) => s.env.filter((e) => e.from.kind === 'field'))).toEqual([]);
  });
});
