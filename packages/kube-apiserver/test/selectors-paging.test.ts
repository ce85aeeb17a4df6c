/**
 * Conformance: label selectors (=, ==, !=, in, notin, exists, !), field selectors
 * (metadata.name, metadata.namespace), and chunked lists (limit/continue, remainingItemCount,
 * 410 Expired for a continue token older than the kept history), driven through
 * @kubernetes/client-node.
 */
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../src/index.js';
import { expectStatus, kubeConfigFor, startTestServer, type TestServer } from './support/cluster.js';
import { deployItem, DEPLOYITEMS, eventually, failureBody, freshNamespace } from './conformance.js';
import { productCrdFiles } from './support/crds.js';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'sel');
  const labelled: [string, Record<string, string>][] = [
    ['a', { env: 'prod', tier: 'web' }],
    ['b', { env: 'dev', tier: 'web' }],
    ['c', { env: 'qa' }],
    ['d', {}],
  ];
  for (const [name, labels] of labelled)
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels } } });
});
afterAll(() => t.stop());

const names = (list: { items: k8s.V1ConfigMap[] }): string[] => list.items.map((i) => i.metadata!.name!);

/** The ConfigMap every namespace of a cluster has (its root CA); it carries no labels. */
const ROOT_CA = 'kube-root-ca.crt';

describe('label selectors', () => {
  it.each([
    ['env=prod', ['a']],
    ['env==dev', ['b']],
    ['env!=prod', ['b', 'c', 'd', ROOT_CA]],
    ['env in (prod,qa)', ['a', 'c']],
    ['env notin (prod,qa)', ['b', 'd', ROOT_CA]],
    ['tier', ['a', 'b']],
    ['!tier', ['c', 'd', ROOT_CA]],
    ['env=prod,tier=web', ['a']],
    ['tier,env!=dev', ['a']],
    ['env in (prod, dev),!tier', []],
    ['', ['a', 'b', 'c', 'd', ROOT_CA]],
  ])('%j selects %j', async (labelSelector, expected) => {
    expect(names(await t.core.listNamespacedConfigMap({ namespace: ns, labelSelector }))).toEqual(expected);
  });

  it('applies to custom resources too', async () => {
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('labelled', undefined, { labels: { owner: 'x' } }),
    });
    await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('unlabelled'),
    });
    const list = (await t.custom.listNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      labelSelector: 'owner in (x)',
    })) as { items: k8s.KubernetesObject[] };
    expect(list.items.map((i) => i.metadata!.name)).toEqual(['labelled']);
  });

  it('refuses a malformed selector with 400 BadRequest', async () => {
    const s = await expectStatus(() =>
      t.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'env in prod' }),
    );
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

describe('field selectors', () => {
  it('selects by metadata.name (= and !=)', async () => {
    expect(
      names(await t.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=b' })),
    ).toEqual(['b']);
    expect(
      names(await t.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name!=b' })),
    ).toEqual(['a', 'c', 'd', ROOT_CA]);
  });

  it('selects by metadata.namespace across namespaces, combined with a label selector', async () => {
    const other = await freshNamespace(t, 'sel-other');
    await t.core.createNamespacedConfigMap({
      namespace: other,
      body: { metadata: { name: 'a', labels: { env: 'prod' } } },
    });
    const all = await t.core.listConfigMapForAllNamespaces({ labelSelector: 'env=prod' });
    expect(all.items.map((i) => i.metadata!.namespace).sort()).toEqual([ns, other].sort());
    const one = await t.core.listConfigMapForAllNamespaces({
      labelSelector: 'env=prod',
      fieldSelector: `metadata.namespace=${other}`,
    });
    expect(one.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`)).toEqual([`${other}/a`]);
  });

  // Known embedded-server bug (selectors.ts parseFieldSelector words every refusal as "field label not supported"): remove .failing once fixed.

  it('refuses an unsupported field label with 400 BadRequest', async () => {
    const s = await expectStatus(() =>
      t.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'data.key=x' }),
    );
    // a ConfigMap has no field-label conversion: apimachinery's default conversion words the refusal
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: '"data.key" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });
});

describe('chunked lists', () => {
  let pns: string;
  beforeAll(async () => {
    pns = await freshNamespace(t, 'page');
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5'])
      await t.core.createNamespacedConfigMap({
        namespace: pns,
        body: { metadata: { name, labels: { page: 'yes' } } },
      });
  });

  it('pages with limit and continue, counting the remaining items', async () => {
    // the namespace's own kube-root-ca.crt sorts first
    const first = await t.core.listNamespacedConfigMap({ namespace: pns, limit: 2 });
    expect(names(first)).toEqual([ROOT_CA, 'p1']);
    expect(first.metadata!.remainingItemCount).toBe(4);
    expect(first.metadata!._continue).toBeTruthy();
    const second = await t.core.listNamespacedConfigMap({
      namespace: pns,
      limit: 2,
      _continue: first.metadata!._continue,
    });
    expect(names(second)).toEqual(['p2', 'p3']);
    expect(second.metadata!.remainingItemCount).toBe(2);
    const third = await t.core.listNamespacedConfigMap({
      namespace: pns,
      limit: 2,
      _continue: second.metadata!._continue,
    });
    expect(names(third)).toEqual(['p4', 'p5']);
    expect(third.metadata!._continue).toBeUndefined();
    expect(third.metadata!.remainingItemCount).toBeUndefined();
    expect(second.metadata!.resourceVersion).toBe(first.metadata!.resourceVersion);
    expect(third.metadata!.resourceVersion).toBe(first.metadata!.resourceVersion);
  });

  // Known embedded-server bug (operations.ts list reads the current store for a continue token): remove .failing once fixed.

  it('serves every page from the snapshot of the first (later writes do not show)', async () => {
    const first = await t.core.listNamespacedConfigMap({ namespace: pns, limit: 2 });
    await t.core.createNamespacedConfigMap({ namespace: pns, body: { metadata: { name: 'p2a' } } });
    await t.core.deleteNamespacedConfigMap({ name: 'p3', namespace: pns });
    try {
      const rest = await t.core.listNamespacedConfigMap({
        namespace: pns,
        _continue: first.metadata!._continue,
      });
      expect(names(rest)).toEqual(['p2', 'p3', 'p4', 'p5']);
    } finally {
      await t.core.deleteNamespacedConfigMap({ name: 'p2a', namespace: pns });
      await t.core.createNamespacedConfigMap({
        namespace: pns,
        body: { metadata: { name: 'p3', labels: { page: 'yes' } } },
      });
    }
  });

  // Known embedded-server bug (operations.ts list sets remainingItemCount with selectors too): remove .failing once fixed.

  it('leaves remainingItemCount out when a selector filters the list', async () => {
    const first = await t.core.listNamespacedConfigMap({
      namespace: pns,
      limit: 2,
      labelSelector: 'page=yes',
    });
    expect(names(first)).toEqual(['p1', 'p2']);
    expect(first.metadata!._continue).toBeTruthy();
    expect(first.metadata!.remainingItemCount).toBeUndefined();
  });

  it('pages custom resources', async () => {
    for (const name of ['c1', 'c2', 'c3'])
      await t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: pns, body: deployItem(name) });
    const first = (await t.custom.listNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: pns,
      limit: 2,
    })) as { items: k8s.KubernetesObject[]; metadata: { continue?: string; remainingItemCount?: number } };
    expect(first.items.map((i) => i.metadata!.name)).toEqual(['c1', 'c2']);
    expect(first.metadata.remainingItemCount).toBe(1);
    const rest = (await t.custom.listNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: pns,
      limit: 2,
      _continue: first.metadata.continue,
    })) as { items: k8s.KubernetesObject[] };
    expect(rest.items.map((i) => i.metadata!.name)).toEqual(['c3']);
  });

  it('refuses a continue token that is not one with 400 BadRequest', async () => {
    const s = await expectStatus(() =>
      t.core.listNamespacedConfigMap({ namespace: pns, limit: 2, _continue: 'not-a-token' }),
    );
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

describe('a continue token older than the kept history', () => {
  let server: ApiServer;
  let core: k8s.CoreV1Api;
  beforeAll(async () => {
    server = await startApiServer({ crdFiles: productCrdFiles(), historySize: 5 });
    core = kubeConfigFor(server).makeApiClient(k8s.CoreV1Api);
  });
  afterAll(() => server.stop());

  // Known embedded-server bug (operations.ts list / errors.ts: the Expired Status carries no metadata.continue): remove .failing once fixed.

  it('is 410 Expired with a fresh continue token to resume inconsistently', async () => {
    for (const name of ['x1', 'x2', 'x3'])
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
    await eventually(() => core.readNamespacedConfigMap({ name: ROOT_CA, namespace: 'default' }));
    const first = await core.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
    for (let i = 0; i < 8; i++)
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `later-${i}` } },
      });
    const call = (): Promise<unknown> =>
      core.listNamespacedConfigMap({ namespace: 'default', limit: 1, _continue: first.metadata!._continue });
    const s = await expectStatus(call);
    expect(s).toMatchObject({
      code: 410,
      reason: 'Expired',
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    });
    // the Status carries a token that continues after the last key of the first chunk, at the latest resourceVersion
    const body = await failureBody(call);
    const token = body.metadata?.continue as string | undefined;
    expect(token).toBeTruthy();
    const resumed = await core.listNamespacedConfigMap({ namespace: 'default', _continue: token });
    // default's kube-root-ca.crt sorts first; what was created since shows up after it
    expect(names(first)).toEqual([ROOT_CA]);
    expect(names(resumed)).toEqual([...Array.from({ length: 8 }, (_, i) => `later-${i}`), 'x1', 'x2', 'x3']);
  });
});
