import { decodeProtobufObject, ProtobufDecodeError } from './index.js';
import { KUBECTL_CAPTURES } from './protobuf.fixtures.js';

// A tiny protobuf writer for hand-built bodies, independent of the one in wire.ts.
type Bytes = number[];
const varint = (n: number | bigint): Bytes => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: Bytes = [];
  for (; v >= 0x80n; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  return [...out, Number(v)];
};
const int = (field: number, n: number | bigint): Bytes => [...varint(field * 8), ...varint(n)];
const raw = (field: number, data: Bytes): Bytes => [
  ...varint(field * 8 + 2),
  ...varint(data.length),
  ...data,
];
const str = (field: number, s: string): Bytes => raw(field, [...Buffer.from(s, 'utf8')]);
const msg = (field: number, ...parts: Bytes[]): Bytes => raw(field, parts.flat());
const entry = (field: number, key: string, value: Bytes): Bytes => msg(field, str(1, key), raw(2, value));
const text = (s: string): Bytes => [...Buffer.from(s, 'utf8')];
const envelope = (apiVersion: string, kind: string, ...object: Bytes[]): Buffer =>
  Buffer.from([
    ...text('k8s\0'),
    ...msg(1, str(1, apiVersion), str(2, kind)),
    ...msg(2, ...object),
    ...str(3, ''),
    ...str(4, ''),
  ]);
/** ObjectMeta as client-go writes it: fields 1-8 always, labels (11) when set. */
const meta = (name: string, labels: Record<string, string> = {}): Bytes =>
  msg(
    1,
    str(1, name),
    ...[2, 3, 4, 5, 6].map((f) => str(f, '')),
    int(7, 0),
    raw(8, []),
    ...Object.entries(labels).map(([k, v]) => entry(11, k, text(v))),
  );
const NEW_YEAR_2026 = 1767225600; // 2026-01-01T00:00:00Z

describe('decodeProtobufObject: hand-built bodies', () => {
  it('decodes a ConfigMap with data, binaryData, immutable=false and a creation time', () => {
    const body = envelope(
      'v1',
      'ConfigMap',
      msg(
        1,
        str(1, 'app-config'),
        str(3, 'team-a'),
        msg(8, int(1, NEW_YEAR_2026), int(2, 0)),
        entry(12, 'note', text('x')),
      ),
      entry(2, 'a.conf', text('k=v\n')),
      entry(2, 'empty', []),
      entry(3, 'blob', [0, 1, 0xfe, 0xff]),
      int(4, 0),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'app-config',
        namespace: 'team-a',
        creationTimestamp: '2026-01-01T00:00:00Z',
        annotations: { note: 'x' },
      },
      data: { 'a.conf': 'k=v\n', empty: '' },
      binaryData: { blob: 'AAH+/w==' },
      immutable: false,
    });
  });

  it('decodes a Secret with binary data as base64 and keeps stringData and type', () => {
    const body = envelope(
      'v1',
      'Secret',
      meta('creds'),
      entry(2, 'key.bin', [0x00, 0x80, 0xff, 0x10, 0x20]),
      entry(2, 'user', text('admin')),
      str(3, 'Opaque'),
      entry(4, 'plain', text('text')),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      data: { 'key.bin': 'AID/ECA=', user: 'YWRtaW4=' },
      stringData: { plain: 'text' },
      type: 'Opaque',
    });
  });

  it('decodes a Namespace: empty spec and status stay {}, as Go prints non-pointer structs', () => {
    const body = envelope(
      'v1',
      'Namespace',
      meta('team-a', { env: 'dev' }),
      msg(2, str(1, 'kubernetes')),
      msg(3, str(1, '')),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { env: 'dev' } },
      spec: { finalizers: ['kubernetes'] },
      status: {},
    });
  });

  it('decodes a Deployment as `kubectl create deployment web --image=nginx --replicas=2 --port=80` makes it', () => {
    const container = msg(
      2,
      str(1, 'nginx'),
      str(2, 'nginx'),
      str(5, ''),
      msg(6, str(1, ''), int(2, 0), int(3, 80), str(4, ''), str(5, '')),
      raw(8, []),
      str(13, ''),
      str(14, ''),
      int(16, 0),
      int(17, 0),
      int(18, 0),
      str(20, ''),
    );
    const podSpec = msg(
      2,
      container,
      ...[3, 6, 8, 9, 10].map((f) => str(f, '')),
      ...[11, 12, 13].map((f) => int(f, 0)),
      ...[16, 17, 19, 24].map((f) => str(f, '')),
    );
    const spec = msg(
      2,
      int(1, 2),
      msg(2, entry(1, 'app', text('web'))),
      msg(3, meta('', { app: 'web' }), podSpec),
      msg(4, str(1, '')),
      int(5, 0),
      int(7, 0),
    );
    const status = msg(3, ...[1, 2, 3, 4, 5, 7].map((f) => int(f, 0)));
    const body = envelope('apps/v1', 'Deployment', meta('web', { app: 'web' }), spec, status);

    // byte for byte what kubectl 1.32 sent for that command
    expect(body).toEqual(Buffer.from(KUBECTL_CAPTURES.deployment.body, 'base64'));
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }],
          },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('decodes an autoscaling/v1 Scale', () => {
    const body = envelope(
      'autoscaling/v1',
      'Scale',
      msg(1, str(1, 'web'), str(3, 'default'), str(6, '42')),
      msg(2, int(1, 5)),
      msg(3, int(1, 3), str(2, 'app=web')),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', resourceVersion: '42' },
      spec: { replicas: 5 },
      status: { replicas: 3, selector: 'app=web' },
    });
  });

  it('keeps explicit zero/false of pointer fields and drops zero omitempty scalars', () => {
    const podSpec = msg(
      2,
      msg(2, str(1, 'app'), str(2, 'img'), int(16, 0), msg(15, int(4, 0), int(7, 0))),
      int(4, 0),
      int(21, 0),
      int(11, 0),
      msg(22, str(1, 'k'), int(5, 0)),
    );
    const body = envelope(
      'apps/v1',
      'Deployment',
      meta('d'),
      msg(2, int(1, 0), int(6, 0), msg(3, raw(1, []), podSpec)),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        replicas: 0,
        revisionHistoryLimit: 0,
        template: {
          metadata: {},
          spec: {
            containers: [
              {
                name: 'app',
                image: 'img',
                securityContext: { runAsUser: 0, allowPrivilegeEscalation: false },
              },
            ],
            terminationGracePeriodSeconds: 0,
            automountServiceAccountToken: false,
            tolerations: [{ key: 'k', tolerationSeconds: 0 }],
          },
        },
      },
    });
  });

  it('decodes IntOrString, Quantity maps, volumes and probes with inlined structs', () => {
    const container = msg(
      2,
      str(1, 'app'),
      msg(8, entry(1, 'cpu', str(1, '500m')), entry(2, 'memory', str(1, '64Mi'))),
      msg(10, msg(1, msg(2, str(1, '/healthz'), msg(2, int(1, 1), int(2, 0), str(3, 'http')))), int(4, 10)),
      msg(7, str(1, 'CM'), msg(3, msg(3, msg(1, str(1, 'cm1')), str(2, 'k'), int(3, 1)))),
    );
    const volume = msg(1, str(1, 'cfg'), msg(2, msg(19, msg(1, str(1, 'cm1')), int(3, 420))));
    const strategy = msg(
      4,
      str(1, 'RollingUpdate'),
      msg(2, msg(1, int(1, 0), int(2, 0)), msg(2, int(1, 1), str(3, '25%'))),
    );
    const body = envelope(
      'apps/v1',
      'Deployment',
      meta('d'),
      msg(2, msg(3, raw(1, []), msg(2, volume, container)), strategy),
    );
    const spec = decodeProtobufObject(body).spec as Record<string, unknown>;
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' },
    });
    expect(spec.template).toEqual({
      metadata: {},
      spec: {
        volumes: [{ name: 'cfg', configMap: { name: 'cm1', defaultMode: 420 } }],
        containers: [
          {
            name: 'app',
            resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
            env: [{ name: 'CM', valueFrom: { configMapKeyRef: { name: 'cm1', key: 'k', optional: true } } }],
          },
        ],
      },
    });
  });

  it('decodes a Lease (MicroTime), negative and 64-bit integers, managedFields and packed lists', () => {
    const managed = msg(
      17,
      str(1, 'kubectl'),
      str(2, 'Update'),
      msg(4, int(1, NEW_YEAR_2026)),
      str(6, 'FieldsV1'),
      msg(7, str(1, '{"f:spec":{}}')),
    );
    const lease = envelope(
      'coordination.k8s.io/v1',
      'Lease',
      msg(1, str(1, 'leader'), int(7, 2n ** 40n), managed),
      msg(2, str(1, 'pod-a'), int(2, 15), msg(4, int(1, NEW_YEAR_2026), int(2, 123_456_789)), int(5, -1)),
    );
    expect(decodeProtobufObject(lease)).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'leader',
        generation: 2 ** 40,
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            time: '2026-01-01T00:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': {} },
          },
        ],
      },
      spec: {
        holderIdentity: 'pod-a',
        leaseDurationSeconds: 15,
        renewTime: '2026-01-01T00:00:00.123456Z',
        leaseTransitions: -1,
      },
    });
    const pod = envelope('v1', 'Pod', meta('p'), msg(2, msg(14, raw(4, [...varint(1000), ...varint(2000)]))));
    expect((decodeProtobufObject(pod).spec as Record<string, unknown>).securityContext).toEqual({
      supplementalGroups: [1000, 2000],
    });
  });

  it('skips field numbers it does not know, of every wire type', () => {
    const unknown = [
      ...int(90, 7),
      ...str(91, 'x'),
      ...varint(92 * 8 + 1),
      ...Array<number>(8).fill(1),
      ...varint(93 * 8 + 5),
      1,
      2,
      3,
      4,
    ];
    const body = envelope('v1', 'ConfigMap', msg(1, str(1, 'c'), unknown), entry(2, 'k', text('v')), unknown);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { k: 'v' },
    });
  });

  it('decodes DeleteOptions under any apiVersion', () => {
    const body = envelope(
      'apps/v1',
      'DeleteOptions',
      int(1, 0),
      msg(2, str(1, 'uid-1')),
      str(4, 'Foreground'),
      str(5, 'All'),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'uid-1' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
  });
});

describe('decodeProtobufObject: rejected bodies', () => {
  const reason = (body: Uint8Array): string => {
    try {
      decodeProtobufObject(body);
    } catch (e) {
      expect(e).toBeInstanceOf(ProtobufDecodeError);
      return `${(e as ProtobufDecodeError).reason}: ${(e as Error).message}`;
    }
    throw new Error('no error');
  };

  it('rejects a body without the k8s\\0 magic, e.g. JSON', () => {
    expect(reason(Buffer.from('{"kind":"ConfigMap"}'))).toMatch(/^Malformed: .*magic bytes/);
    expect(reason(Buffer.from('k8s'))).toMatch(/^Malformed/);
  });

  it('rejects a truncated envelope or object', () => {
    const body = envelope('v1', 'ConfigMap', meta('c'));
    expect(reason(body.subarray(0, 12))).toMatch(
      /^Malformed: malformed protobuf envelope: .*runs past the end/,
    );
    const object = Buffer.from([
      ...text('k8s\0'),
      ...msg(1, str(1, 'v1'), str(2, 'ConfigMap')),
      ...raw(2, [0x0a, 0x05, 0x0a]),
    ]);
    expect(reason(object)).toMatch(/^Malformed: ConfigMap in version "v1" cannot be decoded from protobuf/);
  });

  it('rejects an envelope without typeMeta, and a field of the wrong wire type', () => {
    expect(reason(Buffer.from([...text('k8s\0'), ...msg(2, meta('c'))]))).toMatch(
      /^Malformed: .*no apiVersion or kind/,
    );
    expect(reason(envelope('v1', 'ConfigMap', int(1, 3)))).toMatch(
      /ConfigMap\.metadata: wire type 0, expected 2/,
    );
  });

  it('rejects kinds it has no descriptors for', () => {
    expect(reason(envelope('batch/v1', 'Job', meta('j')))).toBe(
      'UnsupportedKind: protobuf decoding of kind "Job" in version "batch/v1" is not supported; send it as application/json',
    );
  });
});
