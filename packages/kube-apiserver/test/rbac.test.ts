/**
 * Conformance: RBAC on a cluster started with `rbac: true`, driven through
 * @kubernetes/client-node as a ServiceAccount whose token comes from the TokenRequest API
 * (`serviceaccounts/<name>/token`). Roles, ClusterRoles and their bindings are evaluated as the
 * Kubernetes RBAC authorizer does; denials are the 403 a real kube-apiserver 1.32 sends; the
 * cluster's admin token stays a member of system:masters.
 */
import * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import { deployment, freshNamespace } from './conformance.js';

const RBAC = 'rbac.authorization.k8s.io';

let t: TestServer;
let rbac: k8s.RbacAuthorizationV1Api;
beforeAll(async () => {
  t = await startTestServer({ clusters: [{ name: 'main', rbac: true }] });
  rbac = t.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
});
afterAll(() => t.stop());

/** A KubeConfig for the same cluster that authenticates with `token`. */
function kubeConfigFor(token: string): k8s.KubeConfig {
  const cluster = t.kc.getCurrentCluster()!;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'sa', token }],
    contexts: [{ name: 'sa', cluster: cluster.name, user: 'sa' }],
    currentContext: 'sa',
  });
  return kc;
}

async function serviceAccount(namespace: string, name: string): Promise<void> {
  await t.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
}

async function tokenFor(namespace: string, name: string): Promise<string> {
  const tr = await t.core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } },
  });
  return tr.status!.token;
}

async function grant(
  namespace: string,
  name: string,
  rules: k8s.V1PolicyRule[],
  subject: k8s.RbacV1Subject,
): Promise<void> {
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'Role', name }, subjects: [subject] },
  });
}

/** A namespace with service account `fn`, and the clients of `fn`. */
async function actor(
  prefix: string,
): Promise<{ ns: string; token: string; core: k8s.CoreV1Api; apps: k8s.AppsV1Api }> {
  const ns = await freshNamespace(t, prefix);
  await serviceAccount(ns, 'fn');
  const token = await tokenFor(ns, 'fn');
  const kc = kubeConfigFor(token);
  return { ns, token, core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

const fnSubject = (ns: string): k8s.RbacV1Subject => ({ kind: 'ServiceAccount', name: 'fn', namespace: ns });
const user = (ns: string): string => `User "system:serviceaccount:${ns}:fn"`;

describe('TokenRequest', () => {
  it('issues a token for a service account', async () => {
    const ns = await freshNamespace(t, 'tok');
    await serviceAccount(ns, 'fn');
    const tr = await t.core.createNamespacedServiceAccountToken({
      namespace: ns,
      name: 'fn',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: [], expirationSeconds: 1200 },
      },
    });
    expect(tr.metadata).toMatchObject({ name: 'fn', namespace: ns });
    expect(tr.spec.expirationSeconds).toBe(1200);
    expect(tr.status!.token.split('.')).toHaveLength(3);
    expect(new Date(tr.status!.expirationTimestamp).getTime() - Date.now()).toBeGreaterThan(1100_000);
  });

  it('answers 404 for an unknown service account', async () => {
    const ns = await freshNamespace(t, 'tok');
    const s = await expectStatus(() => tokenFor(ns, 'ghost'));
    expect(s).toMatchObject({ code: 404, reason: 'NotFound', message: 'serviceaccounts "ghost" not found' });
  });
});

describe('authentication', () => {
  it('answers 401 without a token', async () => {
    const res = await t.raw('/api/v1/namespaces/default/configmaps', { token: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({
      kind: 'Status',
      code: 401,
      reason: 'Unauthorized',
      message: 'Unauthorized',
    });
  });

  it('answers 401 for a token that is not one', async () => {
    const res = await t.raw('/api/v1/namespaces/default/configmaps', { token: 'not-a-token' });
    expect(res.status).toBe(401);
  });

  it("answers 401 for a deleted service account's token, also once it is recreated", async () => {
    const a = await actor('gone');
    await grant(
      a.ns,
      'cm-reader',
      [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      fnSubject(a.ns),
    );
    await a.core.listNamespacedConfigMap({ namespace: a.ns });
    await t.core.deleteNamespacedServiceAccount({ namespace: a.ns, name: 'fn' });
    const res = await t.raw(`/api/v1/namespaces/${a.ns}/configmaps`, { token: a.token });
    expect(res.status).toBe(401);
    await serviceAccount(a.ns, 'fn');
    expect((await t.raw(`/api/v1/namespaces/${a.ns}/configmaps`, { token: a.token })).status).toBe(401);
  });

  it('keeps the admin token all-powerful', async () => {
    const res = await t.raw('/api/v1/nodes');
    expect(res.status).toBe(200);
  });

  it('lets any service account read discovery and the version', async () => {
    const a = await actor('disc');
    for (const path of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/version']) {
      const res = await t.raw(path, { token: a.token });
      expect([path, res.status]).toEqual([path, 200]);
    }
  });
});

describe('authorization', () => {
  it('lets a Role allowing get/list configmaps list but not create (403 with the real message)', async () => {
    const a = await actor('verbs');
    await t.core.createNamespacedConfigMap({ namespace: a.ns, body: { metadata: { name: 'x' } } });
    await grant(
      a.ns,
      'cm-reader',
      [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      fnSubject(a.ns),
    );
    const list = await a.core.listNamespacedConfigMap({ namespace: a.ns });
    expect(list.items.map((c) => c.metadata!.name)).toContain('x');
    expect((await a.core.readNamespacedConfigMap({ namespace: a.ns, name: 'x' })).metadata!.name).toBe('x');
    const s = await expectStatus(() =>
      a.core.createNamespacedConfigMap({ namespace: a.ns, body: { metadata: { name: 'y' } } }),
    );
    expect(s).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `configmaps is forbidden: ${user(a.ns)} cannot create resource "configmaps" in API group "" in the namespace "${a.ns}"`,
      details: { kind: 'configmaps' },
    });
    const watch = await expectStatus(() => a.core.listNamespacedConfigMap({ namespace: a.ns, watch: true }));
    expect(watch.message).toBe(
      `configmaps is forbidden: ${user(a.ns)} cannot watch resource "configmaps" in API group "" in the namespace "${a.ns}"`,
    );
  });

  it('names the object in the 403 of a named request', async () => {
    const a = await actor('named');
    const s = await expectStatus(() => a.core.deleteNamespacedConfigMap({ namespace: a.ns, name: 'x' }));
    expect(s).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `configmaps "x" is forbidden: ${user(a.ns)} cannot delete resource "configmaps" in API group "" in the namespace "${a.ns}"`,
      details: { name: 'x', kind: 'configmaps' },
    });
  });

  it('limits a rule with resourceNames to the named objects', async () => {
    const a = await actor('names');
    for (const name of ['mine', 'theirs'])
      await t.core.createNamespacedConfigMap({ namespace: a.ns, body: { metadata: { name } } });
    await grant(
      a.ns,
      'only-mine',
      [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['mine'],
          verbs: ['get', 'list', 'update'],
        },
      ],
      fnSubject(a.ns),
    );
    await a.core.readNamespacedConfigMap({ namespace: a.ns, name: 'mine' });
    const other = await expectStatus(() =>
      a.core.readNamespacedConfigMap({ namespace: a.ns, name: 'theirs' }),
    );
    expect(other.message).toBe(
      `configmaps "theirs" is forbidden: ${user(a.ns)} cannot get resource "configmaps" in API group "" in the namespace "${a.ns}"`,
    );
    const list = await expectStatus(() => a.core.listNamespacedConfigMap({ namespace: a.ns }));
    expect(list.code).toBe(403);
    const selected = await a.core.listNamespacedConfigMap({
      namespace: a.ns,
      fieldSelector: 'metadata.name=mine',
    });
    expect(selected.items.map((c) => c.metadata!.name)).toEqual(['mine']);
    const create = await expectStatus(() =>
      a.core.createNamespacedConfigMap({ namespace: a.ns, body: { metadata: { name: 'mine' } } }),
    );
    expect(create.code).toBe(403);
  });

  it('allows deployments/scale without allowing deployments', async () => {
    const a = await actor('scale');
    await t.apps.createNamespacedDeployment({ namespace: a.ns, body: deployment('web', { replicas: 1 }) });
    await grant(
      a.ns,
      'scaler',
      [{ apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'update', 'patch'] }],
      fnSubject(a.ns),
    );
    const scale = await a.apps.readNamespacedDeploymentScale({ namespace: a.ns, name: 'web' });
    expect(scale.spec!.replicas).toBe(1);
    const updated = await a.apps.replaceNamespacedDeploymentScale({
      namespace: a.ns,
      name: 'web',
      body: { ...scale, spec: { replicas: 3 } },
    });
    expect(updated.spec!.replicas).toBe(3);
    const s = await expectStatus(() => a.apps.readNamespacedDeployment({ namespace: a.ns, name: 'web' }));
    expect(s).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `deployments.apps "web" is forbidden: ${user(a.ns)} cannot get resource "deployments" in API group "apps" in the namespace "${a.ns}"`,
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
    const status = await expectStatus(() =>
      a.apps.readNamespacedDeploymentStatus({ namespace: a.ns, name: 'web' }),
    );
    expect(status.message).toBe(
      `deployments.apps "web" is forbidden: ${user(a.ns)} cannot get resource "deployments/status" in API group "apps" in the namespace "${a.ns}"`,
    );
  });

  it('limits a ClusterRole bound by a RoleBinding to that namespace', async () => {
    const a = await actor('crole');
    const elsewhere = await freshNamespace(t, 'crole-other');
    const name = `secret-reader-${a.ns}`;
    await rbac.createClusterRole({
      body: { metadata: { name }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: a.ns,
      body: {
        metadata: { name: 'rb' },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
        subjects: [fnSubject(a.ns)],
      },
    });
    await a.core.listNamespacedSecret({ namespace: a.ns });
    const other = await expectStatus(() => a.core.listNamespacedSecret({ namespace: elsewhere }));
    expect(other.message).toBe(
      `secrets is forbidden: ${user(a.ns)} cannot list resource "secrets" in API group "" in the namespace "${elsewhere}"`,
    );
    const all = await expectStatus(() => a.core.listSecretForAllNamespaces());
    expect(all.message).toBe(
      `secrets is forbidden: ${user(a.ns)} cannot list resource "secrets" in API group "" at the cluster scope`,
    );
  });

  it('applies a ClusterRoleBinding in every namespace', async () => {
    const a = await actor('crb');
    const name = `pod-lister-${a.ns}`;
    await rbac.createClusterRole({
      body: { metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
        subjects: [fnSubject(a.ns)],
      },
    });
    await a.core.listPodForAllNamespaces();
    await a.core.listNamespacedPod({ namespace: 'default' });
  });

  it('lets a service account request tokens only when allowed serviceaccounts/token', async () => {
    const a = await actor('tokreq');
    const kc = kubeConfigFor(a.token).makeApiClient(k8s.CoreV1Api);
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } };
    const s = await expectStatus(() =>
      kc.createNamespacedServiceAccountToken({ namespace: a.ns, name: 'fn', body }),
    );
    expect(s.message).toBe(
      `serviceaccounts "fn" is forbidden: ${user(a.ns)} cannot create resource "serviceaccounts/token" in API group "" in the namespace "${a.ns}"`,
    );
    await grant(
      a.ns,
      'tokens',
      [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }],
      fnSubject(a.ns),
    );
    const tr = await kc.createNamespacedServiceAccountToken({ namespace: a.ns, name: 'fn', body });
    expect(tr.status!.token).toBeTruthy();
  });
});

describe('RBAC objects', () => {
  it('refuses to change the roleRef of a RoleBinding (422)', async () => {
    const ns = await freshNamespace(t, 'immut');
    const rb = await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: { metadata: { name: 'rb' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'a' }, subjects: [] },
    });
    const s = await expectStatus(() =>
      rbac.replaceNamespacedRoleBinding({
        namespace: ns,
        name: 'rb',
        body: { ...rb, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'b' } },
      }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: `RoleBinding.${RBAC} "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"${RBAC}", Kind:"Role", Name:"b"}: cannot change roleRef`,
    });
  });

  it('accepts RBAC names that are not DNS subdomains', async () => {
    const name = `example:reader:${Date.now()}`;
    const cr = await rbac.createClusterRole({ body: { metadata: { name }, rules: [] } });
    expect(cr.metadata!.name).toBe(name);
  });
});
