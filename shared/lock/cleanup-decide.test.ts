import type { SyncObject } from '../api/landscaper.js';
import type { PartialObjectMetadata } from '@landscape/apimachinery';
import type { CleanupDecision, CleanupObservation } from './cleanup-decide.js';
import { decideCleanup, isCleanupAction } from './cleanup-decide.js';

function so(
  spec: Partial<SyncObject['spec']> = {},
  meta: Partial<NonNullable<SyncObject['metadata']>> = {},
): SyncObject {
  return {
    metadata: { name: 'mock-u1', namespace: 'ns', uid: 's1', resourceVersion: '3', ...meta },
    spec: {
      podName: '',
      kind: 'DeployItem',
      name: 'di',
      lastUpdateTime: '2024-01-01T00:00:00Z',
      prefix: 'mock',
      ...spec,
    },
  };
}

function obj(uid: string | undefined, deletionTimestamp?: string): PartialObjectMetadata {
  return {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: { name: 'di', uid, deletionTimestamp },
  };
}

const table: [string, SyncObject, CleanupObservation, CleanupDecision][] = [
  ['object exists with the UID → keep', so(), obj('u1'), { action: 'keep', reason: 'object exists' }],
  ['object gone → delete', so(), 'NotFound', { action: 'delete', reason: 'object gone' }],
  [
    'object recreated (other UID) → delete',
    so(),
    obj('u2'),
    { action: 'delete', reason: 'object recreated' },
  ],
  [
    'object being deleted (finalizers) still exists → keep',
    so(),
    obj('u1', '2024-01-01T00:00:00Z'),
    { action: 'keep', reason: 'object exists' },
  ],
  [
    'locked SyncObject of a live object → keep',
    so({ podName: 'fn-a' }),
    obj('u1'),
    { action: 'keep', reason: 'object exists' },
  ],
  [
    'unknown kind → skip with an error',
    so({ kind: 'Gizmo' }),
    'UnknownKind',
    { action: 'skip', error: 'unknown kind Gizmo' },
  ],
  [
    'empty spec.kind → skip',
    so({ kind: '' }),
    'NotFound',
    { action: 'skip', error: 'spec.kind or spec.name is empty' },
  ],
  [
    'empty spec.name → skip',
    so({ name: '' }),
    'NotFound',
    { action: 'skip', error: 'spec.kind or spec.name is empty' },
  ],
  [
    'empty spec.prefix → skip',
    so({ prefix: '' }),
    obj('u1'),
    { action: 'skip', error: 'spec.prefix is empty' },
  ],
  ['object without UID → skip', so(), obj(undefined), { action: 'skip', error: 'the object has no UID' }],
  [
    'SyncObject already being deleted → keep',
    so({}, { deletionTimestamp: '2024-01-01T00:00:00Z' }),
    'NotFound',
    { action: 'keep', reason: 'already being deleted' },
  ],
  [
    'the prefix of spec, not of another controller, gives the name',
    so({ prefix: 'manifest' }),
    obj('u1'),
    { action: 'delete', reason: 'object recreated' },
  ],
];

describe('decideCleanup', () => {
  it.each(table)('%s', (_name, syncObject, observed, want) => {
    const got = decideCleanup(syncObject, observed);
    expect(got).toEqual(want);
    expect(isCleanupAction(got.action)).toBe(true);
  });
});
