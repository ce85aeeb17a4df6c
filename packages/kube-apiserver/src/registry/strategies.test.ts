/**
 * The strategy table (./strategies.ts): which kind gets which rules, and the generic strategy's
 * status handling, with hand-made resource definitions.
 */
import { StatusError } from '../api/errors.js';
import type { KubeObject, ResourceDef } from '../api/types.js';
import { GENERIC_STRATEGY } from './generic-strategy.js';
import { servesSubresource, strategyFor } from './strategies.js';

function def(group: string, kind: string, status = false): ResourceDef {
  return { group, kind, subresources: status ? { status: {} } : {} } as unknown as ResourceDef;
}

const obj = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x' },
  ...extra,
});

describe('strategyFor', () => {
  it('gives a kind without an entry the generic strategy', () => {
    expect(strategyFor(def('example.com', 'Widget'))).toBe(GENERIC_STRATEGY);
    expect(strategyFor(def('example.com', 'Namespace'))).toBe(GENERIC_STRATEGY);
  });

  it.each([
    ['', 'Namespace', 'finalize', true],
    ['core.gardener.cloud', 'Shoot', 'binding', true],
    ['example.com', 'Shoot', 'binding', false],
    ['', 'Secret', 'finalize', false],
    ['', 'Namespace', undefined, false],
  ])('%s/%s serves %s: %s', (group, kind, sub, want) => {
    expect(servesSubresource(def(group, kind), sub)).toBe(want);
  });

  it('keeps a Namespace held by its spec.finalizers and marks it Terminating', () => {
    const ns = strategyFor(def('', 'Namespace', true));
    const o = obj({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    expect(ns.pendingFinalizers(o)).toEqual(['kubernetes']);
    expect(ns.prepareForDelete(def('', 'Namespace', true), o).status).toEqual({ phase: 'Terminating' });
    expect(ns.prepareForCreate(def('', 'Namespace', true), obj()).status).toEqual({ phase: 'Active' });
  });

  it('folds a Secret stringData into data on create and update', () => {
    const secret = def('', 'Secret');
    const s = strategyFor(secret);
    const created = s.prepareForCreate(secret, obj({ stringData: { a: 'b' } }));
    expect(created).toMatchObject({ data: { a: 'Yg==' }, type: 'Opaque' });
    expect(created).not.toHaveProperty('stringData');
    expect(s.prepareForUpdate(secret, obj(), obj({ stringData: { c: 'd' } }))).toMatchObject({
      data: { c: 'ZA==' },
    });
  });

  it.each([
    ['', 'Pod', 'spec.nodeName', true],
    ['', 'Event', 'involvedObject.name', true],
    ['', 'Service', undefined, true],
    ['apps', 'Deployment', undefined, false],
    ['example.com', 'Pod', undefined, false],
  ])('%s/%s: field label %s, core wording %s', (group, kind, label, legacy) => {
    const s = strategyFor(def(group, kind));
    if (label) expect(Object.keys(s.fieldLabels)).toContain(label);
    else expect(s.fieldLabels).toEqual({});
    expect(s.legacyFieldLabelErrors).toBe(legacy);
  });

  it('validates RBAC objects on create', () => {
    const role = def('rbac.authorization.k8s.io', 'Role');
    const bad = obj({ rules: [{ verbs: [] }] });
    expect(() => strategyFor(role).prepareForCreate(role, bad)).toThrow(StatusError);
  });
});

describe('the generic strategy', () => {
  const withStatus = def('example.com', 'Widget', true);
  const plain = def('example.com', 'Widget');

  it('clears status on create and keeps the stored status on update of a kind with a status subresource', () => {
    expect(GENERIC_STRATEGY.prepareForCreate(withStatus, obj({ status: { a: 1 } }))).not.toHaveProperty(
      'status',
    );
    expect(GENERIC_STRATEGY.prepareForCreate(plain, obj({ status: { a: 1 } })).status).toEqual({ a: 1 });
    const prev = obj({ status: { a: 1 } });
    expect(GENERIC_STRATEGY.prepareForUpdate(withStatus, prev, obj({ status: { a: 2 } })).status).toEqual({
      a: 1,
    });
    expect(GENERIC_STRATEGY.prepareForUpdate(plain, prev, obj({ status: { a: 2 } })).status).toEqual({
      a: 2,
    });
  });

  it('changes only status on a status write', () => {
    const prev = obj({ spec: { s: 1 }, status: { a: 1 } });
    expect(
      GENERIC_STRATEGY.prepareForStatusUpdate(withStatus, prev, obj({ spec: { s: 2 }, status: { a: 2 } })),
    ).toEqual(obj({ spec: { s: 1 }, status: { a: 2 } }));
  });

  it.each([[0], [3], [undefined]])('takes %s replicas on a scale write', (replicas) => {
    expect(() => GENERIC_STRATEGY.validateScaleUpdate(plain, 'x', replicas)).not.toThrow();
  });

  it.each([[-1], [1.5], ['2']])('refuses %s replicas on a scale write', (replicas) => {
    expect(() => GENERIC_STRATEGY.validateScaleUpdate(plain, 'x', replicas)).toThrow(StatusError);
  });
});
