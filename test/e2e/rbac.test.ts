/**
 * `npm start -- --rbac`: the admin creates a ServiceAccount, a Role and a RoleBinding with kubectl's
 * generator commands (protobuf bodies), gets a token with `kubectl create token`, and kubectl with
 * that token is allowed and refused as on a real 1.32 cluster, until the ServiceAccount is deleted.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { configMap } from './manifests.js';
import { outcome, parseTable, useLandscape, type CommandResult } from './support.js';

const landscape = useLandscape(['--rbac']);

const SA_USER = 'system:serviceaccount:default:fn';

function failure(stderr: string): { code: number; stdout: string; stderr: string } {
  return { code: 1, stdout: '', stderr: `${stderr}\n` };
}

function created(stdout: string): { code: number; stdout: string; stderr: string } {
  return { code: 0, stdout: `${stdout}\n`, stderr: '' };
}

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
}

/** A kubeconfig for `token`: the main cluster's server and CA, a user with just the token. */
async function tokenKubeconfig(token: string): Promise<string> {
  const admin = parse(await readFile(landscape().kubeconfig(), 'utf8')) as Kubeconfig;
  const path = join(landscape().stateDir, 'fn.kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'main', cluster: admin.clusters[0].cluster }],
    users: [{ name: 'fn', user: { token } }],
    contexts: [{ name: 'fn', context: { cluster: 'main', user: 'fn', namespace: 'default' } }],
    'current-context': 'fn',
  };
  await writeFile(path, stringify(config));
  return path;
}

/** The claims of a JWT (its second, base64url part). */
function jwtPayload(token: string): unknown {
  const claims = Buffer.from(token.split('.')[1], 'base64url').toString('utf8');
  return JSON.parse(claims) as unknown;
}

describe('a ServiceAccount token under RBAC', () => {
  let fnConfig = '';
  const asFn = (args: string[]): Promise<CommandResult> => {
    if (!fnConfig) throw new Error('no token kubeconfig (kubectl create token failed)');
    return landscape().kubectl(args, { kubeconfig: fnConfig });
  };

  it('the admin creates the ServiceAccount, a Role and a RoleBinding with the generator commands', async () => {
    const l = landscape();
    expect(outcome(await l.kubectl(['create', 'serviceaccount', 'fn']))).toEqual(
      created('serviceaccount/fn created'),
    );
    const role = ['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps'];
    expect(outcome(await l.kubectl(role))).toEqual(
      created('role.rbac.authorization.k8s.io/cm-reader created'),
    );
    const binding = [
      'create',
      'rolebinding',
      'fn-reads-cm',
      '--role=cm-reader',
      '--serviceaccount=default:fn',
    ];
    expect(outcome(await l.kubectl(binding))).toEqual(
      created('rolebinding.rbac.authorization.k8s.io/fn-reads-cm created'),
    );
    expect((await l.getJson(['role', 'cm-reader'])).rules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    ]);
    const rb = await l.getJson(['rolebinding', 'fn-reads-cm']);
    expect([rb.roleRef, rb.subjects]).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      [{ kind: 'ServiceAccount', name: 'fn', namespace: 'default' }],
    ]);
    await l.kubectlOk(['create', 'configmap', 'settings', '--from-literal=mode=fast']);
  });

  it('kubectl create token fn prints a token for the ServiceAccount', async () => {
    const r = await landscape().kubectl(['create', 'token', 'fn']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    // just the JWT: kubectl adds a newline only when stdout is a terminal
    expect(r.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const token = r.stdout;
    expect(jwtPayload(token)).toMatchObject({ sub: SA_USER });
    fnConfig = await tokenKubeconfig(token);
  });

  it('with the token, kubectl get configmaps works', async () => {
    const r = await asFn(['get', 'configmaps']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    // as on a cluster, every namespace holds the root CA ConfigMap (root-ca-cert-publisher)
    expect(parseTable(r.stdout).map((row) => [row.NAME, row.DATA])).toEqual([
      ['kube-root-ca.crt', '1'],
      ['settings', '1'],
    ]);
  });

  it('with the token, creating a configmap is forbidden', async () => {
    const forbidden =
      `configmaps is forbidden: User "${SA_USER}" cannot create resource "configmaps" in API group "" ` +
      'in the namespace "default"';
    // kubectl create configmap wraps the server's error (`failed to create configmap: %v`).
    expect(outcome(await asFn(['create', 'configmap', 'x']))).toEqual(
      failure(`error: failed to create configmap: ${forbidden}`),
    );
    const file = await landscape().manifest('x.yaml', configMap('x', { a: 'b' }));
    expect(outcome(await asFn(['create', '-f', file]))).toEqual(
      failure(`Error from server (Forbidden): error when creating "${file}": ${forbidden}`),
    );
  });

  it('with the token, kubectl get secrets and get rolebinding are forbidden', async () => {
    expect(outcome(await asFn(['get', 'secrets']))).toEqual(
      failure(
        `Error from server (Forbidden): secrets is forbidden: User "${SA_USER}" cannot list resource "secrets" ` +
          'in API group "" in the namespace "default"',
      ),
    );
    expect(outcome(await asFn(['get', 'rolebinding']))).toEqual(
      failure(
        'Error from server (Forbidden): rolebindings.rbac.authorization.k8s.io is forbidden: ' +
          `User "${SA_USER}" cannot list resource "rolebindings" in API group "rbac.authorization.k8s.io" ` +
          'in the namespace "default"',
      ),
    );
  });

  it('the admin sees the binding as NAME ROLE AGE (wide: the subjects) and the role as NAME CREATED AT', async () => {
    const l = landscape();
    const r = await l.kubectlOk(['get', 'rolebinding']);
    expect(r.stdout.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'ROLE', 'AGE']);
    expect(parseTable(r.stdout)).toEqual([
      { NAME: 'fn-reads-cm', ROLE: 'Role/cm-reader', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
    const wide = parseTable((await l.kubectlOk(['get', 'rolebinding', '-o', 'wide'])).stdout);
    expect(wide).toEqual([
      {
        NAME: 'fn-reads-cm',
        ROLE: 'Role/cm-reader',
        AGE: expect.stringMatching(/^\d+s$/),
        USERS: '',
        GROUPS: '',
        SERVICEACCOUNTS: 'default/fn',
      },
    ]);
    // the default table convertor: an RFC 3339 timestamp, not an age
    expect((await l.kubectlOk(['get', 'roles'])).stdout).toMatch(
      /^NAME {8}CREATED AT\ncm-reader {3}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/,
    );
  });

  it('kubectl auth can-i answers for the ServiceAccount from its Role', async () => {
    expect(outcome(await asFn(['auth', 'can-i', 'list', 'configmaps']))).toEqual({
      code: 0,
      stdout: 'yes\n',
      stderr: '',
    });
    const no = await asFn(['auth', 'can-i', 'create', 'configmaps']);
    expect({ code: no.code, stdout: no.stdout }).toEqual({ code: 1, stdout: 'no\n' });
    const admin = await landscape().kubectl(['auth', 'can-i', 'delete', 'secrets', '-A']);
    expect(outcome(admin)).toEqual({ code: 0, stdout: 'yes\n', stderr: '' });
  });

  it('after kubectl delete sa fn, the token is no longer accepted', async () => {
    expect(outcome(await landscape().kubectl(['delete', 'sa', 'fn']))).toEqual(
      created('serviceaccount "fn" deleted'),
    );
    expect(outcome(await asFn(['get', 'configmaps']))).toEqual(
      failure('error: You must be logged in to the server (Unauthorized)'),
    );
  });
});

describe('cluster-wide roles with the generator commands', () => {
  it('create clusterrole and clusterrolebinding; get -o wide shows the subjects', async () => {
    const l = landscape();
    const role = ['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods'];
    expect(outcome(await l.kubectl(role))).toEqual(
      created('clusterrole.rbac.authorization.k8s.io/pod-reader created'),
    );
    const binding = [
      'create',
      'clusterrolebinding',
      'read-pods',
      '--clusterrole=pod-reader',
      '--user=alice',
      '--user=bob',
      '--group=devs',
      '--serviceaccount=kube-system:ci',
    ];
    expect(outcome(await l.kubectl(binding))).toEqual(
      created('clusterrolebinding.rbac.authorization.k8s.io/read-pods created'),
    );
    expect((await l.getJson(['clusterrole', 'pod-reader'])).rules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
    ]);
    const rows = parseTable(
      (await l.kubectlOk(['get', 'clusterrolebinding', 'read-pods', '-o', 'wide'])).stdout,
    );
    expect(rows).toEqual([
      {
        NAME: 'read-pods',
        ROLE: 'ClusterRole/pod-reader',
        AGE: expect.stringMatching(/^\d+s$/),
        USERS: 'alice, bob',
        GROUPS: 'devs',
        SERVICEACCOUNTS: 'kube-system/ci',
      },
    ]);
  });
});
