/**
 * managedFields after non-apply writes (trackUpdate): what creates and updates own, how other
 * managers lose fields, user-provided and reset managedFields, the status subresource, entry
 * order and timestamps, the cap of ten Update managers, and the first apply to an object that
 * has no managedFields.
 */
import type { KubeObject } from '../../api/types.js';
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
  updated,
  widget,
  WIDGET,
} from './apply.fixtures.js';
import { trackUpdate } from './apply.js';

const uid = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: 'uid-1' } });

describe('creates', () => {
  it.each([
    {
      name: 'a Deployment: zero-value structs exist already, so spec and template carry no "."',
      def: DEPLOY,
      obj: { ...deployment([{ name: 'nginx', image: 'nginx:1' }], { replicas: 1 }) },
      fieldsV1: {
        'f:spec': {
          'f:replicas': {},
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
          },
        },
      },
    },
    {
      name: 'a ConfigMap: data and annotations are new maps',
      def: CM,
      obj: configMap({ a: '1' }, { annotations: { note: 'x' } }),
      fieldsV1: {
        'f:data': { '.': {}, 'f:a': {} },
        'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } },
      },
    },
    {
      name: 'a custom resource: spec is new; open subtrees are owned key by key',
      def: WIDGET,
      obj: widget({ size: 1, extra: { deep: { x: 1 } }, selector: { a: 'b' }, tags: ['t'] }),
      fieldsV1: {
        'f:spec': {
          '.': {},
          'f:extra': { '.': {}, 'f:deep': { '.': {}, 'f:x': {} } },
          'f:selector': {},
          'f:size': {},
          'f:tags': {},
        },
      },
    },
  ])('$name', ({ def, obj, fieldsV1 }) => {
    expect(
      trackUpdate(def, undefined, obj, { manager: 'kubectl-create', operation: 'Update', now: at(0) }),
    ).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
        time: '2025-03-04T05:06:07Z',
        fieldsType: 'FieldsV1',
        fieldsV1,
      },
    ]);
  });

  it('does not own status of a kind with a status subresource, nor server-set metadata', () => {
    const obj = {
      ...widget({ size: 1 }, { phase: 'x' }),
      metadata: { name: 'w', generation: 1, resourceVersion: '5' },
    };
    expect(owners(created(WIDGET, obj, 'c'))).toEqual({ c: ['.spec', '.spec.size'] });
  });
});

describe('updates', () => {
  const start = applied(CM, undefined, configMap({ a: '1', b: '1' }), 'm1');

  it.each([
    {
      name: 'the writer owns what it changed; the applier keeps the rest',
      change: (o: any) => (o.data.a = '2'),
      expected: { m1: ['.data.b'], 'kubectl-edit': ['.data.a'] },
    },
    {
      name: 'a removed field leaves every manager',
      change: (o: any) => delete o.data.a,
      expected: { m1: ['.data.b'] },
    },
    {
      name: 'an added field goes to the writer',
      change: (o: any) => (o.data.c = '1'),
      expected: { m1: ['.data.a', '.data.b'], 'kubectl-edit': ['.data.c'] },
    },
    {
      name: 'an unchanged object changes no ownership (and adds no entry)',
      change: () => undefined,
      expected: { m1: ['.data.a', '.data.b'] },
    },
  ])('$name', ({ change, expected }) => {
    expect(owners(updated(CM, start, change, 'kubectl-edit', { now: at(9) }))).toEqual(expected);
  });

  it('merges repeated updates by one manager and bumps its time only when it changes something', () => {
    let obj = updated(CM, start, (o) => (o.data.c = '1'), 'kubectl-edit', { now: at(10) });
    obj = updated(CM, obj, (o) => (o.data.d = '1'), 'kubectl-edit', { now: at(20) });
    expect(owners(obj)['kubectl-edit']).toEqual(['.data.c', '.data.d']);
    expect(entries(obj)[1].time).toBe('2025-03-04T05:06:27Z');
    obj = updated(CM, obj, () => undefined, 'kubectl-edit', { now: at(30) });
    expect(entries(obj)[1].time).toBe('2025-03-04T05:06:27Z');
  });

  it('a status update owns status with subresource "status" and ignores managedFields in the request', () => {
    const obj = applied(WIDGET, undefined, widget({ size: 1 }), 'm1');
    const next = updated(
      WIDGET,
      obj,
      (o) => {
        o.status = { phase: 'Ready' };
        o.metadata.managedFields = [];
      },
      'ctrl',
      { subresource: 'status', now: at(4) },
    );
    expect(entries(next)).toEqual([
      expect.objectContaining({ manager: 'm1', operation: 'Apply' }),
      {
        manager: 'ctrl',
        operation: 'Update',
        apiVersion: 'example.com/v1',
        time: '2025-03-04T05:06:11Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { '.': {}, 'f:phase': {} } },
        subresource: 'status',
      },
    ]);
  });

  it('a scale update owns spec.replicas with subresource "scale"', () => {
    const obj = applied(DEPLOY, undefined, deployment([{ name: 'a' }], { replicas: 1 }), 'm1');
    const next = updated(DEPLOY, obj, (o) => (o.spec.replicas = 3), 'kubectl', { subresource: 'scale' });
    expect(entries(next)[1]).toMatchObject({
      manager: 'kubectl',
      subresource: 'scale',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(owners(next).m1).not.toContain('.spec.replicas');
  });
});

describe('managedFields sent with an update', () => {
  const start = applied(CM, undefined, configMap({ a: '1', b: '1' }), 'm1');
  const given = [
    {
      manager: 'x',
      operation: 'Update',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    },
  ];

  it.each([
    {
      name: 'a valid list replaces the stored one',
      managedFields: given,
      expected: { x: ['.data.a'], 'kubectl-edit': ['.data.c'] },
    },
    { name: 'an empty list resets them (and tracking stops)', managedFields: [], expected: {} },
    { name: 'a single empty entry resets them too', managedFields: [{}], expected: {} },
    {
      name: 'an undecodable list is ignored',
      managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1' }],
      expected: { m1: ['.data.a', '.data.b'], 'kubectl-edit': ['.data.c'] },
    },
  ])('$name', ({ managedFields, expected }) => {
    const next = updated(
      CM,
      start,
      (o) => ((o.metadata.managedFields = managedFields), (o.data.c = '1')),
      'kubectl-edit',
    );
    expect(owners(next)).toEqual(expected);
  });
});

describe('entries', () => {
  it('sorts appliers first, then by time, then by manager name', () => {
    let obj = created(CM, configMap({ a: '1' }), 'z-create', at(0));
    obj = updated(CM, obj, (o) => (o.data.b = '1'), 'b-edit', { now: at(30) });
    obj = updated(CM, obj, (o) => (o.data.c = '1'), 'a-edit', { now: at(30) });
    obj = applied(CM, obj, configMap({ d: '1' }), 'm1', { now: at(60) });
    expect(entries(obj).map((e) => e.manager)).toEqual(['m1', 'z-create', 'a-edit', 'b-edit']);
  });

  it('keeps ten Update managers: the oldest merge into "ancient-changes"', () => {
    let obj = created(CM, configMap({ k0: '0' }), 'u0', at(0));
    for (let i = 1; i <= 10; i++)
      obj = updated(CM, obj, (o) => (o.data[`k${i}`] = '1'), `u${i}`, { now: at(i) });
    const list = entries(obj);
    expect(list).toHaveLength(10);
    expect(list[0]).toMatchObject({ manager: 'ancient-changes', time: '2025-03-04T05:06:08Z' });
    expect(owners(obj)['ancient-changes']).toEqual(['.data', '.data.k0', '.data.k1']);
    expect(list.slice(1).map((e) => e.manager)).toEqual([
      'u2',
      'u3',
      'u4',
      'u5',
      'u6',
      'u7',
      'u8',
      'u9',
      'u10',
    ]);
  });

  it('a re-apply that changes nothing leaves object and time alone', () => {
    const first = applied(CM, undefined, configMap({ a: '1' }), 'm1', { now: at(0) });
    const again = applied(CM, first, configMap({ a: '1' }), 'm1', { now: at(60) });
    expect(again).toEqual(first);
  });
});

describe('objects without managedFields', () => {
  const legacy = uid(configMap({ a: '1' }));

  it('updates do not start tracking', () => {
    expect(
      trackUpdate(
        CM,
        legacy,
        { ...legacy, data: { a: '2' } },
        { manager: 'e', operation: 'Update', now: at(0) },
      ),
    ).toEqual([]);
  });

  it('the first apply gives what is there to "before-first-apply"', () => {
    const obj = applied(CM, legacy, configMap({ b: '1' }), 'm1', { now: at(1) });
    expect(owners(obj)).toEqual({ m1: ['.data.b'], 'before-first-apply': ['.data', '.data.a'] });
    expect(() => applied(CM, legacy, configMap({ a: '2' }), 'm1')).toThrow(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
    );
  });
});

describe('times sent back by clients', () => {
  it('are read as metav1.Time: a PUT of what was read (times with milliseconds) changes nothing', () => {
    const stored = applied(CM, undefined, configMap({ a: '1' }), 'm1');
    const roundTripped = structuredClone(stored);
    for (const e of entries(roundTripped)) e.time = new Date(Date.parse(e.time!)).toISOString();
    expect(entries(roundTripped)[0].time).toBe('2025-03-04T05:06:07.000Z');
    expect(trackUpdate(CM, stored, roundTripped, { manager: 'x', operation: 'Update', now: at(9) })).toEqual(
      entries(stored),
    );
  });
});
