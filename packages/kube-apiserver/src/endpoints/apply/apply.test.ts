/**
 * Server-side apply: fieldsV1 of an applied Deployment, ownership across apply sequences,
 * conflicts (wording, plural, causes) and force, shared ownership, removal on re-apply, list-map
 * and set merges, atomic lists, the status subresource, and refused requests.
 */
import { applyPatch } from './apply.js';
import {
  applied,
  at,
  CM,
  configMap,
  created,
  DEPLOY,
  deployment,
  entries,
  owners,
  statusOf,
  updated,
  widget,
  WIDGET,
} from './apply.fixtures.js';
import type { KubeObject } from '../../api/types.js';

const C = '.spec.template.spec.containers';

describe('fieldsV1 of an applied Deployment', () => {
  const config = deployment(
    [
      {
        name: 'nginx',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', name: 'dns' }],
        env: [{ name: 'MODE', value: 'prod' }],
      },
    ],
    { replicas: 2 },
  );
  config.metadata.labels = { app: 'web' };
  const obj = applied(DEPLOY, undefined, config, 'kubectl');

  it('keys containers and env by name, ports by containerPort+protocol (protocol defaulted), labels by key', () => {
    const [entry] = entries(obj);
    expect(Object.keys(entry)).toEqual([
      'manager',
      'operation',
      'apiVersion',
      'time',
      'fieldsType',
      'fieldsV1',
    ]);
    expect(entry).toMatchObject({
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: '2025-03-04T05:06:07Z',
      fieldsType: 'FieldsV1',
    });
    expect(JSON.stringify(entry.fieldsV1)).toBe(
      JSON.stringify({
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:replicas': {},
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:env': { 'k:{"name":"MODE"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                  'f:image': {},
                  'f:name': {},
                  'f:ports': {
                    'k:{"containerPort":53,"protocol":"UDP"}': {
                      '.': {},
                      'f:containerPort': {},
                      'f:name': {},
                      'f:protocol': {},
                    },
                    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  },
                },
              },
            },
          },
        },
      }),
    );
  });

  it('creates the object from the configuration alone', () => {
    const { managedFields: _m, uid: _u, ...meta } = obj.metadata;
    expect({ ...obj, metadata: meta }).toEqual(config);
  });
});

describe('conflicts', () => {
  const csa = created(CM, configMap({ a: '1', b: '1' }), 'kubectl-client-side-apply');

  it.each([
    {
      name: 'one field of an Update manager',
      config: configMap({ a: '2' }),
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
      causes: [['.data.a', 'conflict with "kubectl-client-side-apply" using v1']],
    },
    {
      name: 'two fields (plural, one path per line)',
      config: configMap({ a: '2', b: '2' }),
      message:
        'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using v1:\n- .data.a\n- .data.b',
      causes: [
        ['.data.a', 'conflict with "kubectl-client-side-apply" using v1'],
        ['.data.b', 'conflict with "kubectl-client-side-apply" using v1'],
      ],
    },
  ])('$name: 409 worded as the API server words it', ({ config, message, causes }) => {
    const status = statusOf(() => applied(CM, csa, config, 'other'));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Conflict',
      code: 409,
      details: {
        causes: causes.map(([field, msg]) => ({ reason: 'FieldManagerConflict', message: msg, field })),
      },
    });
  });

  it('groups conflicts by manager, managers sorted, appliers without an apiVersion', () => {
    let obj = applied(CM, undefined, configMap({ a: '1' }), 'm1');
    obj = updated(CM, obj, (o) => (o.data.b = '1'), 'u1', { now: at(1) });
    const status = statusOf(() => applied(CM, obj, configMap({ a: '2', b: '2' }), 'm2'));
    expect(status.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.a\nconflicts with "u1" using v1:\n- .data.b',
    );
    expect(status.details.causes.map((c: { message: string }) => c.message)).toEqual([
      'conflict with "m1"',
      'conflict with "u1" using v1',
    ]);
  });

  it('names the subresource of a status manager', () => {
    let obj = applied(WIDGET, undefined, widget({ size: 1 }), 'm1');
    obj = applied(WIDGET, obj, widget({}, { phase: 'A' }), 'ctrl', { subresource: 'status' });
    const status = statusOf(() =>
      applied(WIDGET, obj, widget({}, { phase: 'B' }), 'other', { subresource: 'status' }),
    );
    expect(status.message).toBe(
      'Apply failed with 1 conflict: conflict with "ctrl" with subresource "status": .status.phase',
    );
  });

  it('force moves the field to the applier; the other manager keeps the rest', () => {
    const obj = applied(CM, csa, configMap({ a: '2' }), 'other', { force: true });
    expect(obj.data).toEqual({ a: '2', b: '1' });
    expect(owners(obj)).toEqual({
      other: ['.data.a'],
      'kubectl-client-side-apply': ['.data', '.data.b'],
    });
  });

  it('an applier never conflicts with itself', () => {
    const obj = applied(CM, undefined, configMap({ a: '1' }), 'm1');
    expect(applied(CM, obj, configMap({ a: '2' }), 'm1').data).toEqual({ a: '2' });
  });
});

describe('ownership across applies and updates', () => {
  it('same value: shared ownership, no conflict; removal waits for the last owner', () => {
    let obj = applied(CM, undefined, configMap({ a: '1' }), 'm1');
    obj = applied(CM, obj, configMap({ a: '1' }), 'm2', { now: at(5) });
    expect(owners(obj)).toEqual({ m1: ['.data.a'], m2: ['.data.a'] });
    // the object did not change: the new applier's entry has no time
    expect(entries(obj).find((e) => e.manager === 'm2')!.time).toBeUndefined();
    obj = applied(CM, obj, configMap({}), 'm1');
    expect(obj.data).toEqual({ a: '1' });
    obj = applied(CM, obj, configMap({}), 'm2');
    expect(obj.data).toBeUndefined();
    expect(obj.metadata.managedFields).toBeUndefined();
  });

  it('re-applying without a field removes it', () => {
    let obj = applied(CM, undefined, configMap({ a: '1', b: '1' }), 'm1');
    obj = applied(CM, obj, configMap({ a: '1' }), 'm1');
    expect(obj.data).toEqual({ a: '1' });
    expect(owners(obj)).toEqual({ m1: ['.data.a'] });
  });

  it('a field an Update manager also owns survives the applier dropping it', () => {
    let obj = created(CM, configMap({ a: '1', b: '1' }), 'kubectl-create');
    obj = applied(CM, obj, configMap({ a: '1', b: '1' }), 'm1');
    obj = applied(CM, obj, configMap({ a: '1' }), 'm1');
    expect(obj.data).toEqual({ a: '1', b: '1' });
  });

  it('an update takes the fields it changes from the applier (and the applier then conflicts)', () => {
    let obj = applied(CM, undefined, configMap({ a: '1' }), 'm1');
    obj = updated(CM, obj, (o) => (o.data.a = '2'), 'kubectl-edit', { now: at(3) });
    expect(owners(obj)).toEqual({ 'kubectl-edit': ['.data.a'] });
    expect(statusOf(() => applied(CM, obj, configMap({ a: '1' }), 'm1')).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
    );
  });
});

describe('lists', () => {
  const names = (o: any): string[] =>
    (o.spec.template.spec.containers as { name: string; image: string }[]).map((c) => `${c.name}:${c.image}`);

  it('merges list-map items by key; each applier owns its items; dropped items go', () => {
    let obj = applied(DEPLOY, undefined, deployment([{ name: 'a', image: 'a:1' }]), 'm1');
    obj = applied(DEPLOY, obj, deployment([{ name: 'b', image: 'b:1' }]), 'm2');
    expect(names(obj)).toEqual(['a:a:1', 'b:b:1']);
    expect(owners(obj).m2).toContain(`${C}[name="b"]`);
    obj = applied(DEPLOY, obj, deployment([{ name: 'a', image: 'a:2' }]), 'm1');
    expect(names(obj)).toEqual(['a:a:2', 'b:b:1']);
    obj = applied(DEPLOY, obj, deployment([{ name: 'c', image: 'c:1' }]), 'm1');
    expect(names(obj)).toEqual(['b:b:1', 'c:c:1']);
  });

  it("follows the configuration's order for the items it names when it changes something", () => {
    const three = deployment([
      { name: 'a', image: '1' },
      { name: 'b', image: '1' },
      { name: 'c', image: '1' },
    ]);
    let obj = applied(DEPLOY, undefined, three, 'm1');
    obj = applied(DEPLOY, obj, deployment([{ name: 'b', image: '1' }]), 'm2');
    const reordered = (image: string): KubeObject =>
      deployment([
        { name: 'c', image: '1' },
        { name: 'a', image },
      ]);
    // order alone is no change: the live object stays as it is
    expect(names(applied(DEPLOY, obj, reordered('1'), 'm1'))).toEqual(['a:1', 'b:1', 'c:1']);
    expect(names(applied(DEPLOY, obj, reordered('2'), 'm1'))).toEqual(['b:1', 'c:1', 'a:2']);
  });

  it('replaces atomic lists whole and owns them as one field', () => {
    let obj = applied(DEPLOY, undefined, deployment([{ name: 'a', args: ['x', 'y'] }]), 'm1');
    expect(owners(obj).m1).toContain(`${C}[name="a"].args`);
    const config = deployment([{ name: 'a', args: ['z'] }]);
    expect(statusOf(() => applied(DEPLOY, obj, config, 'm2')).message).toBe(
      `Apply failed with 1 conflict: conflict with "m1": ${C}[name="a"].args`,
    );
    obj = applied(DEPLOY, obj, config, 'm2', { force: true });
    expect((obj.spec as any).template.spec.containers[0].args).toEqual(['z']);
    expect(owners(obj).m1).not.toContain(`${C}[name="a"].args`);
  });

  it('merges sets by value and owns each value', () => {
    let obj = applied(CM, undefined, configMap({}, { finalizers: ['x'] }), 'm1');
    obj = applied(CM, obj, configMap({}, { finalizers: ['y'] }), 'm2');
    expect(obj.metadata.finalizers).toEqual(['x', 'y']);
    expect(entries(obj)[0].fieldsV1).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"x"': {} } } });
    obj = applied(CM, obj, configMap({}, { finalizers: [] }), 'm1');
    expect(obj.metadata.finalizers).toEqual(['y']);
  });

  it('keys custom resource list-maps by their list-map keys (defaults filling missing keys)', () => {
    const obj = applied(
      WIDGET,
      undefined,
      widget({ ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }] }),
      'm1',
    );
    expect(owners(obj).m1).toEqual([
      '.spec.ports[port=80,protocol="TCP"]',
      '.spec.ports[port=80,protocol="UDP"]',
      '.spec.ports[port=80,protocol="TCP"].port',
      '.spec.ports[port=80,protocol="UDP"].port',
      '.spec.ports[port=80,protocol="UDP"].protocol',
    ]);
  });
});

describe('status subresource', () => {
  it('a main-resource apply neither sets nor owns status; a status apply owns only status', () => {
    let obj = applied(DEPLOY, undefined, deployment([{ name: 'a' }], { replicas: 2 }), 'm1');
    obj = applied(
      DEPLOY,
      obj,
      { ...deployment([{ name: 'a' }], { replicas: 2 }), status: { replicas: 5 } },
      'm1',
    );
    expect(obj.status).toBeUndefined();
    const statusConfig = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 9 },
      status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
    };
    obj = applied(DEPLOY, obj, statusConfig, 'ctrl', { subresource: 'status', now: at(2) });
    expect((obj.spec as any).replicas).toBe(2);
    expect(obj.status).toEqual(statusConfig.status);
    expect(entries(obj).find((e) => e.manager === 'ctrl')).toEqual({
      manager: 'ctrl',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: '2025-03-04T05:06:09Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:status': {
          'f:conditions': { 'k:{"type":"Available"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
          'f:replicas': {},
        },
      },
      subresource: 'status',
    });
    // the main resource cannot touch status (no conflict with the status manager either)
    obj = applied(
      DEPLOY,
      obj,
      { ...deployment([{ name: 'a' }], { replicas: 2 }), status: { replicas: 7 } },
      'm1',
    );
    expect((obj.status as any).replicas).toBe(2);
  });

  it('a status apply of a missing object is 404', () => {
    expect(
      statusOf(() => applied(WIDGET, undefined, widget({}, { phase: 'A' }), 'c', { subresource: 'status' })),
    ).toMatchObject({
      code: 404,
      message: 'widgets.example.com "w" not found',
    });
  });
});

describe('refused apply requests', () => {
  it.each([
    {
      name: 'managedFields in the configuration',
      config: configMap({}, { managedFields: [] }),
      code: 400,
      message: 'metadata.managedFields must be nil',
    },
    {
      name: 'another kind',
      config: { ...configMap({}), kind: 'Secret' },
      code: 400,
      message: 'invalid object type: /v1, Kind=Secret',
    },
    {
      name: 'an undeclared field',
      config: { ...configMap({}), spec: { x: 1 } },
      code: 500,
      message:
        'failed to create typed patch object (default/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema',
    },
    {
      name: 'a list-map item without its key',
      config: deployment([{ image: 'x' } as any]),
      code: 500,
      message:
        'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): ' +
        `${C}: element 0: associative list with keys has an element that omits key field "name" (and doesn't have default value)`,
    },
  ])('$name', ({ config, code, message }) => {
    const def = config.kind === 'Deployment' ? DEPLOY : CM;
    const status = statusOf(() =>
      applyPatch(def, undefined, config, { manager: 'm', force: false, now: at(0) }),
    );
    expect({ code: status.code, message: status.message }).toEqual({ code, message });
    expect(status.reason).toBe(code === 500 ? undefined : 'BadRequest');
  });

  it('lists several type errors under "errors:"', () => {
    const config = deployment([{ name: 'a' }, { name: 'a' }], { bogus: 1 });
    expect(statusOf(() => applied(DEPLOY, undefined, config, 'm')).message).toBe(
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n' +
        `  ${C}: duplicate entries for key [name="a"]\n` +
        '  .spec.bogus: field not declared in schema',
    );
  });
});
