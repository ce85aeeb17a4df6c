import { AUTOSCALING, parseKnativeDuration, parseServices, toFunctionService } from './services.js';
import type { EnvSource, FunctionService } from './services.js';

/** A Knative Service manifest; `template` and `spec` are merged into the template. */
function manifest(
  o: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    spec?: Record<string, unknown>;
    container?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name: o.name ?? 'fn', ...(o.namespace ? { namespace: o.namespace } : {}) },
    spec: {
      template: {
        ...(o.annotations ? { metadata: { annotations: o.annotations } } : {}),
        spec: { containers: [{ ...o.container }], ...o.spec },
      },
    },
  };
}

const ann = (key: string, value: string): Record<string, string> => ({ [AUTOSCALING + key]: value });

function service(input: unknown, file?: string): FunctionService {
  const r = toFunctionService(input, file);
  expect(r.problems).toEqual([]);
  return r.service!;
}

describe('parseKnativeDuration', () => {
  it.each<[string, number | undefined]>([
    ['60s', 60_000],
    ['0s', 0],
    ['0.5s', 500],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['1h2m3s', 3_723_000],
    [' 10s ', 10_000],
    ['', undefined],
    ['   ', undefined],
    ['60', undefined],
    ['s', undefined],
    ['1.5m', undefined],
    ['-1s', undefined],
    ['10ms', undefined],
    ['30s1m', undefined],
    ['1d', undefined],
  ])('%j → %s', (text, expected) => {
    expect(parseKnativeDuration(text)).toBe(expected);
  });
});

describe('toFunctionService', () => {
  it('Knative defaults for a bare Service', () => {
    expect(toFunctionService(manifest())).toStrictEqual({
      service: {
        name: 'fn',
        namespace: 'default',
        revision: 'fn-00001',
        containerConcurrency: 0,
        maxScale: 0,
        minScale: 0,
        target: 100,
        windowMs: 60_000,
        timeoutSeconds: 300,
        env: [],
      },
      problems: [],
    });
  });

  it('the spec fields, image, service account and file', () => {
    const s = service(
      manifest({
        name: 'requeue-tick',
        namespace: 'landscape-system',
        spec: { serviceAccountName: 'ticker', containerConcurrency: 1, timeoutSeconds: 60 },
        container: { image: 'landscape-functions:0.1.0', command: ['node', 'server.js'] },
      }),
      'knative/runtime/requeue-tick.yaml',
    );
    expect(s).toMatchObject({
      name: 'requeue-tick',
      namespace: 'landscape-system',
      revision: 'requeue-tick-00001',
      containerConcurrency: 1,
      timeoutSeconds: 60,
      serviceAccountName: 'ticker',
      image: 'landscape-functions:0.1.0',
      file: 'knative/runtime/requeue-tick.yaml',
    });
  });

  it.each<[string, Record<string, string>, Partial<FunctionService>]>([
    ['max-scale', ann('max-scale', '3'), { maxScale: 3 }],
    ['max-scale 0 (no limit)', ann('max-scale', '0'), { maxScale: 0 }],
    ['min-scale', ann('min-scale', '2'), { minScale: 2 }],
    ['target', ann('target', '1'), { target: 1 }],
    ['window in seconds', ann('window', '30s'), { windowMs: 30_000 }],
    ['window in minutes and seconds', ann('window', '1m30s'), { windowMs: 90_000 }],
    [
      'all at once, other annotations ignored',
      {
        ...ann('class', 'kpa.autoscaling.knative.dev'),
        ...ann('min-scale', '1'),
        ...ann('max-scale', '1'),
        ...ann('target', '1'),
        ...ann('window', '2m'),
        'example.com/other': 'x',
      },
      { minScale: 1, maxScale: 1, target: 1, windowMs: 120_000 },
    ],
    [
      'min-scale above max-scale 0 (no limit) is fine',
      { ...ann('min-scale', '5') },
      { minScale: 5, maxScale: 0 },
    ],
    ['min-scale equal to max-scale', { ...ann('min-scale', '2'), ...ann('max-scale', '2') }, { minScale: 2 }],
  ])('annotation: %s', (_, annotations, expected) => {
    expect(service(manifest({ annotations }))).toMatchObject(expected);
  });

  it.each<[string, Record<string, string>, string[]]>([
    [
      'negative max-scale',
      ann('max-scale', '-1'),
      [`annotation ${AUTOSCALING}max-scale: "-1" is not a whole number >= 0`],
    ],
    [
      'fractional min-scale',
      ann('min-scale', '1.5'),
      [`annotation ${AUTOSCALING}min-scale: "1.5" is not a whole number >= 0`],
    ],
    [
      'text target',
      ann('target', 'many'),
      [`annotation ${AUTOSCALING}target: "many" is not a whole number >= 0`],
    ],
    ['target 0', ann('target', '0'), [`annotation ${AUTOSCALING}target: must be at least 1`]],
    [
      'window without a unit',
      ann('window', '60'),
      [`annotation ${AUTOSCALING}window: "60" is not a duration`],
    ],
    [
      'min-scale above max-scale',
      { ...ann('min-scale', '3'), ...ann('max-scale', '2') },
      ['min-scale 3 is above max-scale 2'],
    ],
    [
      'every problem at once',
      { ...ann('max-scale', 'x'), ...ann('min-scale', '-2'), ...ann('window', 'soon') },
      [
        `annotation ${AUTOSCALING}window: "soon" is not a duration`,
        `annotation ${AUTOSCALING}max-scale: "x" is not a whole number >= 0`,
        `annotation ${AUTOSCALING}min-scale: "-2" is not a whole number >= 0`,
      ],
    ],
  ])('bad annotation: %s', (_, annotations, problems) => {
    expect(toFunctionService(manifest({ annotations }))).toEqual({ problems });
  });

  it.each<[string, Record<string, unknown>, EnvSource]>([
    ['a value', { name: 'X', value: 'v' }, { kind: 'value', value: 'v' }],
    ['no value at all: empty', { name: 'X' }, { kind: 'value', value: '' }],
    [
      'a fieldRef',
      { name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { kind: 'field', fieldPath: 'metadata.name' },
    ],
    [
      'a secretKeyRef (required by default)',
      { name: 'X', valueFrom: { secretKeyRef: { name: 'landscape-redis', key: 'url' } } },
      { kind: 'secret', name: 'landscape-redis', key: 'url', optional: false },
    ],
    [
      'an optional secretKeyRef',
      { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
      { kind: 'secret', name: 's', key: 'k', optional: true },
    ],
    [
      'a configMapKeyRef',
      { name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
      { kind: 'configMap', name: 'cm', key: 'k', optional: false },
    ],
    [
      'an optional configMapKeyRef',
      { name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: true } } },
      { kind: 'configMap', name: 'cm', key: 'k', optional: true },
    ],
  ])('env: %s', (_, entry, from) => {
    expect(service(manifest({ container: { env: [entry] } })).env).toEqual([{ name: 'X', from }]);
  });

  it('env kept in order', () => {
    const env = [
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'C', value: '3' },
    ];
    expect(service(manifest({ container: { env } })).env.map((e) => e.name)).toEqual(['A', 'B', 'C']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string | undefined]>([
    [
      'the mount of the configMap volume',
      { volumeMounts: [{ name: 'config', mountPath: '/etc/landscape', readOnly: true }] },
      { volumes: [{ name: 'config', configMap: { name: 'fn-config' } }] },
      '/etc/landscape',
    ],
    [
      'the configMap volume among others',
      {
        volumeMounts: [
          { name: 'creds', mountPath: '/var/creds' },
          { name: 'config', mountPath: '/etc/fn' },
        ],
      },
      {
        volumes: [
          { name: 'creds', secret: { secretName: 's' } },
          { name: 'config', configMap: { name: 'fn-config' } },
        ],
      },
      '/etc/fn',
    ],
    [
      'a secret volume only: none',
      { volumeMounts: [{ name: 'creds', mountPath: '/var/creds' }] },
      { volumes: [{ name: 'creds', secret: { secretName: 's' } }] },
      undefined,
    ],
    [
      'a configMap volume not mounted: none',
      { volumeMounts: [{ name: 'other', mountPath: '/x' }] },
      { volumes: [{ name: 'config', configMap: { name: 'fn-config' } }] },
      undefined,
    ],
    ['no volumes: none', {}, {}, undefined],
  ])('config mount: %s', (_, container, spec, expected) => {
    expect(service(manifest({ container, spec })).configMountPath).toBe(expected);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'two containers',
      manifest({ spec: { containers: [{ image: 'a' }, { image: 'b' }] } }),
      /^spec\.template\.spec\.containers: .*exactly one container/,
    ],
    ['no container', manifest({ spec: { containers: [] } }), /exactly one container/],
    [
      'value and valueFrom together',
      manifest({
        container: {
          env: [{ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        },
      }),
      /value and valueFrom are mutually exclusive/,
    ],
    [
      'containerConcurrency above 1000',
      manifest({ spec: { containerConcurrency: 1001 } }),
      /^spec\.template\.spec\.containerConcurrency: /,
    ],
    [
      'timeoutSeconds 0',
      manifest({ spec: { timeoutSeconds: 0 } }),
      /^spec\.template\.spec\.timeoutSeconds: /,
    ],
    ['no name', { ...manifest(), metadata: {} }, /^metadata\.name: /],
    ['not an object', 'Service' as unknown as Record<string, unknown>, /^\(root\): /],
  ])('refused: %s', (_, input, problem) => {
    const r = toFunctionService(input);
    expect(r.service).toBeUndefined();
    expect(r.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });
});

describe('parseServices', () => {
  const FILE = 'knative/fns.yaml';

  it('every Knative Service; other kinds (a core Service too) skipped', () => {
    const text = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}',
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: one, namespace: ns}\n' +
        'spec: {template: {spec: {containers: [{image: i}]}}}',
      'apiVersion: v1\nkind: Service\nmetadata: {name: core}\nspec: {ports: [{port: 80}]}',
      'apiVersion: eventing.knative.dev/v1\nkind: Trigger\nmetadata: {name: t}\nspec: {broker: default}',
      '',
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: two}\n' +
        'spec: {template: {spec: {containers: [{}]}}}',
    ].join('\n---\n');
    const r = parseServices(text, FILE);
    expect(r.problems).toEqual([]);
    expect(r.services.map((s) => [s.namespace, s.name, s.file])).toEqual([
      ['ns', 'one', FILE],
      ['default', 'two', FILE],
    ]);
  });

  it.each<[string, string, RegExp[]]>([
    [
      'a YAML error, with file and document number',
      'a: 1\n---\nb: [1, 2\n',
      [/^knative\/fns\.yaml: document 2: /],
    ],
    [
      'a bad Service, named',
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: bad}\n' +
        'spec: {template: {spec: {containers: [{}, {}]}}}',
      [/^knative\/fns\.yaml: Service bad: spec\.template\.spec\.containers: .*exactly one container/],
    ],
    [
      'a bad Service without a name, by document number',
      'kind: ConfigMap\n---\napiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {}\n' +
        'spec: {template: {spec: {containers: [{}]}}}',
      [/^knative\/fns\.yaml: Service document 2: metadata\.name: /],
    ],
    [
      'a bad annotation, named',
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: fn}\n' +
        'spec: {template: {metadata: {annotations: {autoscaling.knative.dev/max-scale: "-1"}}, ' +
        'spec: {containers: [{}]}}}',
      [/^knative\/fns\.yaml: Service fn: annotation autoscaling\.knative\.dev\/max-scale: "-1"/],
    ],
  ])('problem: %s', (_, text, problems) => {
    const r = parseServices(text, FILE);
    expect(r.services).toEqual([]);
    expect(r.problems).toEqual(problems.map((p) => expect.stringMatching(p)));
  });

  it('good Services kept beside a bad one', () => {
    const good =
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: good}\n' +
      'spec: {template: {spec: {containers: [{}]}}}';
    const bad =
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: bad}\n' +
      'spec: {template: {spec: {containers: []}}}';
    const r = parseServices(`${good}\n---\n${bad}`, FILE);
    expect(r.services.map((s) => s.name)).toEqual(['good']);
    expect(r.problems).toHaveLength(1);
  });

  it.each([[''], ['# only a comment\n'], ['---\n---\n']])('nothing in %j', (text) => {
    expect(parseServices(text, FILE)).toEqual({ services: [], problems: [] });
  });
});
