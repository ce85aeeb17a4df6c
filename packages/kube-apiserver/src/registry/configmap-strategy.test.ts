/**
 * ConfigMap and Secret rules (./configmap-strategy.ts, Secret's defaults in ./core-strategy.ts):
 * config keys, required keys per Secret type, `type` immutable, the `immutable: true` lock.
 */
import type { KubeObject } from '../api/types.js';
import { createVia, testDef, updateVia } from './strategy-test-support.js';

const CONFIGMAP = testDef('', 'ConfigMap');
const SECRET = testDef('', 'Secret');

const object = (kind: string, extra: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name: 'x', namespace: 'default' },
  ...extra,
});
const cm = (extra: Record<string, unknown>): KubeObject => object('ConfigMap', extra);
const secret = (extra: Record<string, unknown>): KubeObject => object('Secret', extra);

describe('ConfigMap', () => {
  it.each([
    [
      'a key with a space',
      cm({ data: { 'a b': 'v' } }),
      'ConfigMap "x" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
    ],
    ['the key ..', cm({ data: { '..': 'v' } }), `data[..]: Invalid value: "..": must not be '..'`],
    [
      'a key in data and binaryData',
      cm({ data: { a: 'v' }, binaryData: { a: 'dg==' } }),
      'data[a]: Invalid value: "a": duplicate of key present in binaryData',
    ],
  ])('refuses %s', (_what, obj, message) => {
    expect(createVia(CONFIGMAP, obj)).toContain(message);
  });

  it('locks data and the flag of an immutable ConfigMap, and lets a mutable one change', () => {
    const locked = cm({ data: { a: '1' }, immutable: true });
    expect(updateVia(CONFIGMAP, locked, cm({ data: { a: '2' }, immutable: true }))).toBe(
      'ConfigMap "x" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    expect(updateVia(CONFIGMAP, locked, cm({ data: { a: '1' } }))).toBe(
      'ConfigMap "x" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    );
    expect(
      updateVia(CONFIGMAP, locked, cm({ data: { a: '1' }, binaryData: { b: 'dg==' }, immutable: true })),
    ).toContain('binaryData: Forbidden: field is immutable when `immutable` is set');
    expect(
      updateVia(CONFIGMAP, cm({ data: { a: '1' } }), cm({ data: { a: '2' }, immutable: true })),
    ).toMatchObject({ data: { a: '2' } });
  });
});

describe('Secret', () => {
  it.each([
    [
      'a TLS Secret without its keys',
      secret({ type: 'kubernetes.io/tls', data: {} }),
      'Secret "x" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]',
    ],
    [
      'a docker config Secret without .dockerconfigjson',
      secret({ type: 'kubernetes.io/dockerconfigjson' }),
      'data[.dockerconfigjson]: Required value',
    ],
    ['a bad key', secret({ stringData: { 'a/b': 'v' } }), 'data[a/b]: Invalid value: "a/b"'],
  ])('refuses %s', (_what, obj, message) => {
    expect(createVia(SECRET, obj)).toContain(message);
  });

  it('never changes its type (a missing type is Opaque)', () => {
    const tls = createVia(
      SECRET,
      secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': 'YQ==', 'tls.key': 'Yg==' } }),
    ) as KubeObject;
    expect(updateVia(SECRET, tls, secret({ data: { 'tls.crt': 'YQ==', 'tls.key': 'Yg==' } }))).toBe(
      'Secret "x" is invalid: type: Invalid value: "Opaque": field is immutable',
    );
  });

  it('locks the data of an immutable Secret, stringData included', () => {
    const locked = createVia(SECRET, secret({ data: { a: 'YQ==' }, immutable: true })) as KubeObject;
    expect(updateVia(SECRET, locked, secret({ stringData: { a: 'b' }, immutable: true }))).toBe(
      'Secret "x" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    expect(updateVia(SECRET, locked, secret({ data: { a: 'YQ==' }, immutable: true }))).toMatchObject({
      type: 'Opaque',
    });
  });
});
