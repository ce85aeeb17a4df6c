/**
 * The building blocks: field paths and their two spellings, field-set algebra and the fieldsV1
 * encoding, and the request helpers (default field manager, apply options, apply bodies).
 */
import { FieldSet } from './fieldset.js';
import { field, key, pathString, setValue, type Path } from './path.js';
import { applyOptionsOf, checkApplyName, defaultManager, fieldManagerOf, parseApplyBody } from './request.js';
import { statusOf } from './apply.fixtures.js';

const f = (...names: string[]): Path => names.map(field);

describe('paths', () => {
  it.each([
    { path: f('spec', 'replicas'), text: '.spec.replicas' },
    {
      path: [...f('spec', 'containers'), key([['name', 'nginx']]), field('image')],
      text: '.spec.containers[name="nginx"].image',
    },
    {
      path: [
        field('ports'),
        key([
          ['protocol', 'TCP'],
          ['containerPort', 80],
        ]),
      ],
      text: '.ports[containerPort=80,protocol="TCP"]',
    },
    { path: [...f('metadata', 'finalizers'), setValue('a')], text: '.metadata.finalizers[="a"]' },
  ])('$text', ({ path, text }) => {
    expect(pathString(path)).toBe(text);
  });
});

describe('field sets', () => {
  const set = FieldSet.of(
    f('spec', 'replicas'),
    [...f('spec', 'containers'), key([['name', 'b']])],
    [...f('spec', 'containers'), key([['name', 'b']]), field('image')],
    [...f('spec', 'containers'), key([['name', 'a']])],
    f('data'),
    f('data', 'x'),
    [...f('metadata', 'finalizers'), setValue('z')],
  );

  it('encodes fieldsV1 in structured-merge-diff order, "." first, and decodes it back', () => {
    const v1 = set.toFieldsV1();
    expect(JSON.stringify(v1)).toBe(
      JSON.stringify({
        'f:data': { '.': {}, 'f:x': {} },
        'f:metadata': { 'f:finalizers': { 'v:"z"': {} } },
        'f:spec': {
          'f:containers': { 'k:{"name":"a"}': {}, 'k:{"name":"b"}': { '.': {}, 'f:image': {} } },
          'f:replicas': {},
        },
      }),
    );
    expect(FieldSet.fromFieldsV1(v1).toFieldsV1()).toEqual(v1);
  });

  it('iterates members before children, each level in order', () => {
    expect(set.paths().map(pathString)).toEqual([
      '.data',
      '.data.x',
      '.metadata.finalizers[="z"]',
      '.spec.replicas',
      '.spec.containers[name="a"]',
      '.spec.containers[name="b"]',
      '.spec.containers[name="b"].image',
    ]);
  });

  it('unions, differences, intersections; a recursive difference drops whole subtrees', () => {
    const other = FieldSet.of(f('data'), f('spec', 'replicas'), f('spec', 'paused'));
    expect(set.intersection(other).paths().map(pathString)).toEqual(['.data', '.spec.replicas']);
    expect(set.difference(other).has(f('data', 'x'))).toBe(true);
    expect(
      set
        .recursiveDifference(FieldSet.of(f('spec')))
        .paths()
        .map(pathString),
    ).toEqual(['.data', '.data.x', '.metadata.finalizers[="z"]']);
    expect(set.union(other).has(f('spec', 'paused'))).toBe(true);
    expect(set.difference(set).isEmpty()).toBe(true);
  });

  it('drops unknown prefixes and rejects non-objects', () => {
    expect(FieldSet.fromFieldsV1({ 'f:a': {}, 'x:b': {} }).paths().map(pathString)).toEqual(['.a']);
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow();
  });
});

describe('defaultManager (prefixFromUserAgent)', () => {
  it.each([
    ['kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9', 'kubectl'],
    ['kubectl-client-side-apply/v1.32.0', 'kubectl-client-side-apply'],
    ['Go-http-client/1.1', 'Go-http-client'],
    ['node-fetch', 'node-fetch'],
    ['a\tb\u0000c/1', 'abc'],
    ['', ''],
    [undefined, ''],
    ['x'.repeat(200), 'x'.repeat(128)],
  ])('%j → %j', (ua, manager) => {
    expect(defaultManager(ua)).toBe(manager);
  });
});

describe('request options', () => {
  const q = (s: string): URLSearchParams => new URLSearchParams(s);

  it('apply needs a fieldManager', () => {
    expect(applyOptionsOf(q('fieldManager=kubectl&force=true'))).toEqual({ manager: 'kubectl', force: true });
    expect(applyOptionsOf(q('fieldManager=m'))).toEqual({ manager: 'm', force: false });
    expect(statusOf(() => applyOptionsOf(q('force=false')))).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
  });

  it('other writes fall back to the User-Agent; force is only for apply', () => {
    expect(fieldManagerOf('update', q(''), 'kubectl/v1.32.0')).toBe('kubectl');
    expect(fieldManagerOf('create', q('fieldManager=kubectl-create'), 'kubectl/v1.32.0')).toBe(
      'kubectl-create',
    );
    expect(statusOf(() => fieldManagerOf('patch', q('force=true'), 'x')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect(statusOf(() => fieldManagerOf('create', q(`fieldManager=${'m'.repeat(129)}`), 'x')).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
  });

  it('apply bodies are YAML or JSON objects', () => {
    expect(parseApplyBody('{"apiVersion":"v1","kind":"ConfigMap"}')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(parseApplyBody('apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "1"\n')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { a: '1' },
    });
    expect(statusOf(() => parseApplyBody('[1]'))).toMatchObject({
      code: 400,
      message:
        'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
    });
  });

  it('the applied object must carry the name of the URL', () => {
    expect(() => checkApplyName({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a' } }, 'a')).not.toThrow();
    expect(statusOf(() => checkApplyName({ apiVersion: 'v1', kind: 'X', metadata: {} }, 'a')).message).toBe(
      'the name of the object (a based on URL) was undeterminable: name must be provided',
    );
    expect(
      statusOf(() => checkApplyName({ apiVersion: 'v1', kind: 'X', metadata: { name: 'b' } }, 'a')).message,
    ).toBe('the name of the object (b) does not match the name on the URL (a)');
  });
});
