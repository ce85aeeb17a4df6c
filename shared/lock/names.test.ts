import { MAX_NAME_LENGTH, metaTime, nameProblem, SyncObjectNameError, syncObjectName } from './names.js';

const UID = '0d3c1f2e-7a4b-4c5d-9e8f-0123456789ab';

describe('syncObjectName', () => {
  it('is <prefix>-<uid>', () => {
    expect(syncObjectName('manifest', UID)).toBe(`manifest-${UID}`);
  });

  it.each([
    [
      'prefix too long',
      'p'.repeat(MAX_NAME_LENGTH - UID.length),
      UID,
      /no more than 253 characters, has 254/,
    ],
    ['uppercase prefix', 'Manifest', UID, /lowercase RFC 1123 subdomain/],
    ['prefix with underscore', 'landscaper_helm', UID, /lowercase RFC 1123 subdomain/],
    ['empty prefix', '', UID, /prefix is empty/],
    ['empty uid', 'mock', '', /has no UID/],
  ])('%s → SyncObjectNameError', (_case, prefix, uid, message) => {
    let caught: unknown;
    try {
      syncObjectName(prefix, uid);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SyncObjectNameError);
    expect((caught as SyncObjectNameError).message).toMatch(message);
    expect((caught as SyncObjectNameError).transient).toBe(false);
  });

  it('accepts exactly 253 characters', () => {
    const prefix = 'p'.repeat(MAX_NAME_LENGTH - UID.length - 1);
    expect(syncObjectName(prefix, UID)).toHaveLength(MAX_NAME_LENGTH);
  });
});

describe('nameProblem', () => {
  it.each([
    ['landscaper-helm-abc', undefined],
    ['a.b-c', undefined],
    ['-a', 'subdomain'],
    ['a-', 'subdomain'],
    ['a..b', 'subdomain'],
  ])('%s', (name, problem) => {
    const got = nameProblem(name);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(problem);
  });
});

describe('metaTime', () => {
  it('is RFC 3339 in UTC with whole seconds', () => {
    expect(metaTime(new Date('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09Z');
  });
});
