/**
 * kubectl's client-side apply annotation under server-side apply: the upgrade of an object
 * managed by client-side apply (field manager "kubectl" only) and the annotation kept in step
 * with the applied configuration.
 */
import { applied, at, CM, configMap, created, owners, statusOf, updated } from './apply.fixtures.js';
import { buildLastApplied, LAST_APPLIED, syncLastApplied } from './lastapplied.js';

describe('from client-side apply to server-side apply (field manager "kubectl")', () => {
  const base = configMap({ a: '1', b: '1' });
  const csa = created(
    CM,
    configMap({ a: '1', b: '1' }, { annotations: { [LAST_APPLIED]: buildLastApplied(base) } }),
    'kubectl-client-side-apply',
  );

  it('takes over fields still as last applied without --force-conflicts, and rewrites the annotation', () => {
    const config = configMap({ a: '2' });
    const obj = applied(CM, csa, config, 'kubectl', { now: at(1) });
    expect(obj.data).toEqual({ a: '2', b: '1' });
    expect(owners(obj).kubectl).toEqual(['.data.a']);
    expect(obj.metadata.annotations![LAST_APPLIED]).toBe(
      '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}}\n',
    );
  });

  it('still conflicts for other managers, and on fields changed since the last client-side apply', () => {
    expect(statusOf(() => applied(CM, csa, configMap({ a: '2' }), 'not-kubectl')).code).toBe(409);
    const edited = updated(CM, csa, (o) => (o.data.a = 'x'), 'kubectl-edit', { now: at(1) });
    expect(statusOf(() => applied(CM, edited, configMap({ a: '2', b: '2' }), 'kubectl')).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
    );
  });
});

describe('the annotation', () => {
  it('is the configuration as Go encodes it: keys sorted, HTML characters escaped, a trailing newline', () => {
    const config = configMap({ z: '<&>', a: '1' }, { annotations: { [LAST_APPLIED]: 'old', keep: 'x' } });
    expect(buildLastApplied(config)).toBe(
      '{"apiVersion":"v1","data":{"a":"1","z":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap",' +
        '"metadata":{"annotations":{"keep":"x"},"name":"cm","namespace":"default"}}\n',
    );
  });

  it('is only rewritten for "kubectl", only when present, and dropped when annotations would exceed 256 KiB', () => {
    const withAnnotation = configMap({}, { annotations: { [LAST_APPLIED]: 'old' } });
    const config = configMap({ a: '1' });
    expect(syncLastApplied('helm', withAnnotation, config)).toBe(withAnnotation);
    expect(syncLastApplied('kubectl', configMap({}), config).metadata.annotations).toBeUndefined();
    expect(syncLastApplied('kubectl', withAnnotation, config).metadata.annotations![LAST_APPLIED]).toBe(
      buildLastApplied(config),
    );
    const huge = configMap({ a: 'x'.repeat(300 * 1024) });
    expect(syncLastApplied('kubectl', withAnnotation, huge).metadata.annotations).toEqual({});
  });
});
