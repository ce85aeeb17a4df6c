/**
 * Impersonation and `auth can-i --list` through kubectl under `npm start -- --rbac --no-functions`:
 * --as is evaluated (the request runs as the impersonated user), a user without the
 * `impersonate` verb is refused with kube-apiserver's message, and the rules review lists rules.
 */
import { ok, outcome, useLandscape } from './support.js';

const landscape = useLandscape(['--rbac', '--no-functions']);
const SA = 'system:serviceaccount:default:default';

describe('impersonation with RBAC on', () => {
  let token: string;
  beforeAll(async () => {
    ok(await landscape().kubectl(['create', 'serviceaccount', 'imp']));
    token = ok(await landscape().kubectl(['create', 'token', 'imp'])).stdout.trim();
  });

  it('--as a ServiceAccount is evaluated as that account: can-i says no, a list is forbidden', async () => {
    const canI = outcome(await landscape().kubectl(['auth', 'can-i', 'get', 'pods', `--as=${SA}`]));
    expect(canI).toMatchObject({ code: 1, stdout: 'no\n' });
    const get = outcome(await landscape().kubectl(['get', 'pods', `--as=${SA}`]));
    expect(get.stderr).toContain(
      `Error from server (Forbidden): pods is forbidden: User "${SA}" cannot list resource "pods" in API group "" in the namespace "default"`,
    );
  });

  it('a user without the impersonate verb is refused with the apiserver message', async () => {
    const r = outcome(await landscape().kubectl(['get', 'pods', '--as=bob', `--token=${token}`]));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Error from server (Forbidden): users "bob" is forbidden: User "system:serviceaccount:default:imp" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('once granted impersonate on users, the request runs as the impersonated user', async () => {
    ok(
      await landscape().kubectl([
        'create',
        'clusterrole',
        'impersonator',
        '--verb=impersonate',
        '--resource=users',
      ]),
    );
    ok(
      await landscape().kubectl([
        'create',
        'clusterrolebinding',
        'imp-impersonator',
        '--clusterrole=impersonator',
        '--serviceaccount=default:imp',
      ]),
    );
    ok(await landscape().kubectl(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']));
    ok(await landscape().kubectl(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob']));
    ok(await landscape().kubectl(['get', 'pods', '--as=bob', `--token=${token}`]));
    const cm = outcome(await landscape().kubectl(['get', 'configmaps', '--as=bob', `--token=${token}`]));
    expect(cm.stderr).toContain('User "bob" cannot list resource "configmaps"');
    // a group is another impersonation the account was not granted
    const group = outcome(
      await landscape().kubectl(['get', 'pods', '--as=bob', '--as-group=ops', `--token=${token}`]),
    );
    expect(group.stderr).toContain(
      'groups "ops" is forbidden: User "system:serviceaccount:default:imp" cannot impersonate resource "groups"',
    );
  });

  it('auth can-i --list lists the rules of the (impersonated) user', async () => {
    const admin = ok(await landscape().kubectl(['auth', 'can-i', '--list']));
    expect(admin.stdout).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
    const bob = ok(await landscape().kubectl(['auth', 'can-i', '--list', '--as=bob']));
    expect(bob.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
    expect(bob.stdout).not.toMatch(/^\*\.\*/m);
  });
});
