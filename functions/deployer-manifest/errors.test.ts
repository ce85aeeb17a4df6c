import { ApiException } from '@kubernetes/client-node';
import { DeployerError, NotYetError } from '../../shared/deployer/types.js';
import {
  classifyApiError,
  codesFor,
  missingNamespace,
  notYetError,
  problemsError,
  requestError,
  type WriteVerb,
} from './errors.js';

function apiError(code: number, status: Record<string, unknown> = {}): ApiException<string> {
  return new ApiException(
    code,
    'x',
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', code, ...status }),
    {},
  );
}

describe('classifyApiError', () => {
  it.each<[string, unknown, WriteVerb, string]>([
    ['422 Invalid', apiError(422, { reason: 'Invalid' }), 'create', 'invalid'],
    ['400 BadRequest', apiError(400, { reason: 'BadRequest' }), 'update', 'invalid'],
    [
      '404 on a create (namespace/kind not there yet)',
      apiError(404, { reason: 'NotFound' }),
      'create',
      'pending',
    ],
    ['404 on an update (object vanished)', apiError(404, { reason: 'NotFound' }), 'update', 'transient'],
    ['409 Conflict', apiError(409, { reason: 'Conflict' }), 'update', 'transient'],
    ['403 Forbidden', apiError(403, { reason: 'Forbidden' }), 'create', 'unauthorized'],
    ['401', apiError(401), 'get', 'unauthorized'],
    [
      '403 for a terminating namespace',
      apiError(403, { reason: 'Forbidden', details: { causes: [{ type: 'NamespaceTerminating' }] } }),
      'create',
      'transient',
    ],
    ['500', apiError(500), 'patch', 'transient'],
    ['network error', new Error('ECONNRESET'), 'create', 'transient'],
  ])('%s → %s', (_name, err, verb, want) => {
    expect(classifyApiError(err, verb)).toBe(want);
  });
});

describe('problem aggregation', () => {
  it('missingNamespace reads the NotFound details', () => {
    expect(
      missingNamespace(apiError(404, { reason: 'NotFound', details: { kind: 'namespaces', name: 'x' } })),
    ).toBe('x');
    expect(
      missingNamespace(apiError(404, { reason: 'NotFound', details: { kind: 'configmaps', name: 'x' } })),
    ).toBeUndefined();
  });

  it.each([
    [[{ kind: 'transient' as const, message: 'a' }], []],
    [[{ kind: 'pending' as const, message: 'a' }], []],
    [
      [
        { kind: 'pending' as const, message: 'a' },
        { kind: 'invalid' as const, message: 'b' },
      ],
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
    [
      [
        { kind: 'unauthorized' as const, message: 'a' },
        { kind: 'transient' as const, message: 'b' },
      ],
      ['ERR_UNAUTHORIZED'],
    ],
    [
      [
        { kind: 'invalid' as const, message: 'a' },
        { kind: 'unauthorized' as const, message: 'b' },
      ],
      ['ERR_CONFIGURATION_PROBLEM'],
    ],
  ])('codesFor(%j) = %j', (problems, want) => {
    expect(codesFor(problems)).toEqual(want);
  });

  it('problemsError shows only the manifest problems when there are some', () => {
    const err = problemsError('Op', 'Reason', 'lead', [
      { kind: 'transient', message: 'flaky' },
      { kind: 'invalid', message: 'manifests[1]: bad' },
      { kind: 'invalid', message: 'manifests[2]: worse' },
    ]);
    expect(err).toMatchObject({ operation: 'Op', reason: 'Reason', codes: ['ERR_CONFIGURATION_PROBLEM'] });
    expect(err.message).toBe('lead: manifests[1]: bad; manifests[2]: worse');
  });

  it('notYetError joins as apimachinery aggregates, no codes, carries the providerStatus', () => {
    const one = notYetError('ApplyObjects', 'ApplyNewObject', [{ kind: 'pending', message: 'a' }]);
    expect(one).toBeInstanceOf(NotYetError);
    expect(one).toMatchObject({ message: 'a', codes: [], progressing: true });
    const two = notYetError(
      'ApplyObjects',
      'ApplyNewObject',
      [
        { kind: 'pending', message: 'a' },
        { kind: 'transient', message: 'b' },
      ],
      { managedResources: [] },
    );
    expect(two.message).toBe('[a, b]');
    expect(two.providerStatus).toEqual({ managedResources: [] });
  });

  it('requestError keeps a DeployerError and wraps anything else', () => {
    const own = new DeployerError('A', 'B', 'c');
    expect(requestError('X', 'Y', 'what', own)).toBe(own);
    expect(requestError('X', 'Y', 'reading a', apiError(403, { message: 'no' }))).toMatchObject({
      operation: 'X',
      reason: 'Y',
      message: 'reading a: no',
      codes: ['ERR_UNAUTHORIZED'],
    });
    expect(requestError('X', 'Y', 'reading a', new Error('boom')).codes).toEqual([]);
  });
});
