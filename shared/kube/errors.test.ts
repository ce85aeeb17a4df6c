import { ApiException } from '@kubernetes/client-node';
import {
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isStatusReason,
  isTooManyRequests,
  statusCode,
  statusOf,
  statusReason,
} from './errors.js';

function status(code: number, reason?: string, message = 'm'): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
}

function apiErr(code: number, body: unknown): ApiException<unknown> {
  return new ApiException(code, 'x', body, {});
}

describe('status helpers', () => {
  type Row = [
    string,
    unknown,
    { nf: boolean; conflict: boolean; exists: boolean; reason: string | undefined },
  ];
  const rows: Row[] = [
    [
      '404 NotFound (text body)',
      apiErr(404, status(404, 'NotFound')),
      { nf: true, conflict: false, exists: false, reason: 'NotFound' },
    ],
    [
      '409 Conflict',
      apiErr(409, status(409, 'Conflict')),
      { nf: false, conflict: true, exists: false, reason: 'Conflict' },
    ],
    [
      '409 AlreadyExists',
      apiErr(409, status(409, 'AlreadyExists')),
      { nf: false, conflict: false, exists: true, reason: 'AlreadyExists' },
    ],
    [
      '409 without a body',
      apiErr(409, undefined),
      { nf: false, conflict: true, exists: false, reason: 'Conflict' },
    ],
    [
      '404 with an HTML body',
      apiErr(404, '<html>nope</html>'),
      { nf: true, conflict: false, exists: false, reason: 'NotFound' },
    ],
    [
      '404 with a parsed body',
      apiErr(404, JSON.parse(status(404, 'NotFound'))),
      { nf: true, conflict: false, exists: false, reason: 'NotFound' },
    ],
    [
      'a reason wins over the code',
      apiErr(404, status(404, 'Gone')),
      { nf: false, conflict: false, exists: false, reason: 'Gone' },
    ],
    [
      '401 from a generated API (body undefined)',
      apiErr(401, undefined),
      { nf: false, conflict: false, exists: false, reason: 'Unauthorized' },
    ],
    [
      'plain object with a numeric code',
      { code: 404, body: undefined },
      { nf: true, conflict: false, exists: false, reason: 'NotFound' },
    ],
    [
      'network error (string code)',
      Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
      { nf: false, conflict: false, exists: false, reason: undefined },
    ],
    ['plain Error', new Error('boom'), { nf: false, conflict: false, exists: false, reason: undefined }],
    ['undefined', undefined, { nf: false, conflict: false, exists: false, reason: undefined }],
  ];

  it.each(rows)('%s', (_name, err, want) => {
    expect(isNotFound(err)).toBe(want.nf);
    expect(isConflict(err)).toBe(want.conflict);
    expect(isAlreadyExists(err)).toBe(want.exists);
    expect(statusReason(err)).toBe(want.reason);
  });

  it('statusOf returns the Status body', () => {
    const s = statusOf(apiErr(422, status(422, 'Invalid', 'spec.type: Required value')));
    expect(s).toMatchObject({ code: 422, reason: 'Invalid', message: 'spec.type: Required value' });
    expect(isInvalid(apiErr(422, status(422, 'Invalid')))).toBe(true);
  });

  it('statusOf builds a minimal Status from the code', () => {
    expect(statusOf(apiErr(503, ''))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 503,
      reason: 'ServiceUnavailable',
    });
    expect(statusOf(new Error('x'))).toBeUndefined();
  });

  it('statusCode', () => {
    expect(statusCode(apiErr(500, ''))).toBe(500);
    expect(statusCode(new Error('x'))).toBeUndefined();
  });

  it('isTooManyRequests and isGone', () => {
    expect(isTooManyRequests(apiErr(429, ''))).toBe(true);
    expect(isTooManyRequests(apiErr(500, ''))).toBe(false);
    expect(isGone(apiErr(410, status(410, 'Expired')))).toBe(true);
    expect(isGone(apiErr(410, ''))).toBe(true);
    expect(isGone(apiErr(404, ''))).toBe(false);
  });

  it('isStatusReason', () => {
    expect(isStatusReason('Conflict')).toBe(true);
    expect(isStatusReason('conflict')).toBe(false);
  });
});
