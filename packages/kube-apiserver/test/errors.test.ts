/**
 * Conformance: every bad-input case answers the Status a real kube-apiserver 1.32 answers
 * (code, reason and message), driven through @kubernetes/client-node.
 */
import * as k8s from '@kubernetes/client-node';
import { expectStatus, startTestServer, type TestServer } from './support/cluster.js';
import {
  addToBody,
  conflictMessage,
  deployItem,
  DEPLOYITEMS,
  deployment,
  freshNamespace,
  rewriteBody,
} from './conformance.js';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'errors');
});
afterAll(() => t.stop());

describe('unknown kind', () => {
  it('answers 404 NotFound for a resource no group serves', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: ns,
        plural: 'gizmos',
        body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g' } },
      }),
    );
    expect(s).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });

  it('answers 404 NotFound for an unknown resource in a served group version', async () => {
    const s = await expectStatus(() =>
      t.custom.listNamespacedCustomObject({ group: 'apps', version: 'v1', namespace: ns, plural: 'gizmos' }),
    );
    expect(s).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });
});

describe('unknown namespace', () => {
  it('refuses a create in a namespace that does not exist with 404 namespaces "x" not found', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({ namespace: 'no-such-ns', body: { metadata: { name: 'cm' } } }),
    );
    expect(s).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "no-such-ns" not found' });
    expect(s.details).toMatchObject({ name: 'no-such-ns', kind: 'namespaces' });
  });

  it('refuses a custom resource in a namespace that does not exist the same way', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...DEPLOYITEMS,
        namespace: 'no-such-ns',
        body: deployItem('di'),
      }),
    );
    expect(s).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "no-such-ns" not found' });
  });
});

describe('invalid field type', () => {
  // Known embedded-server bug (decode.ts decodeError words the Go decoder error differently): remove .failing once fixed.
  it('is a 400 decode error for a built-in kind (ConfigMap data value not a string)', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'typed' }, data: { n: 1 as unknown as string } },
      }),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    });
  });

  // Known embedded-server bug (decode.ts decodeError words the Go decoder error differently): remove .failing once fixed.

  it('is a 400 decode error for a built-in kind (Deployment spec.replicas a string)', async () => {
    const body = deployment('typed');
    body.spec!.replicas = 'two' as unknown as number;
    const s = await expectStatus(() => t.apps.createNamespacedDeployment({ namespace: ns, body }));
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    });
  });

  it('is 422 Invalid from the CRD schema for a custom resource (DeployItem spec.type)', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...DEPLOYITEMS,
        namespace: ns,
        body: deployItem('typed', { type: 42 }),
      }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'DeployItem.landscaper.gardener.cloud "typed" is invalid: spec.type: Invalid value: "integer": spec.type in body must be of type string: "integer"',
    });
    expect(s.details).toMatchObject({
      name: 'typed',
      group: 'landscaper.gardener.cloud',
      kind: 'DeployItem',
      causes: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "integer": spec.type in body must be of type string: "integer"',
          field: 'spec.type',
        },
      ],
    });
  });
});

describe('missing required field', () => {
  it('is 422 Invalid for a custom resource without spec.type', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...DEPLOYITEMS,
        namespace: ns,
        body: deployItem('untyped', { context: 'default' }),
      }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'DeployItem.landscaper.gardener.cloud "untyped" is invalid: spec.type: Required value',
    });
    expect(s.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.type' },
    ]);
  });

  it('is 422 Invalid for an object with neither name nor generateName', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: {} } }),
    );
    expect(s).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    });
  });
});

describe('malformed JSON', () => {
  // Known embedded-server bug (decode.ts parseJson uses the JavaScript parser message and no body summary): remove .failing once fixed.
  it('is 400 BadRequest naming the expected kind and a summary of the body', async () => {
    const broken = '{"metadata":{"name":"broken"';
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap(
        { namespace: ns, body: { metadata: { name: 'broken' } } },
        rewriteBody(() => broken),
      ),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (${broken})`,
    });
  });

  it('is 400 BadRequest for a custom resource too', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject(
        { ...DEPLOYITEMS, namespace: ns, body: deployItem('broken') },
        rewriteBody(() => '{"kind":'),
      ),
    );
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(s.message).toMatch(
      /^the object provided is unrecognized \(must be of type DeployItem\): couldn't get version\/kind; json parse error: /,
    );
  });
});

describe('stale resourceVersion', () => {
  it('is 409 Conflict on update', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'stale' }, data: { v: '1' } },
    });
    await t.core.replaceNamespacedConfigMap({
      name: 'stale',
      namespace: ns,
      body: { ...cm, data: { v: '2' } },
    });
    const s = await expectStatus(() =>
      t.core.replaceNamespacedConfigMap({ name: 'stale', namespace: ns, body: { ...cm, data: { v: '3' } } }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('configmaps', 'stale'),
    });
    expect(s.details).toMatchObject({ name: 'stale', kind: 'configmaps' });
    const now = await t.core.readNamespacedConfigMap({ name: 'stale', namespace: ns });
    expect(now.data).toEqual({ v: '2' });
  });

  it('is 409 Conflict on a merge patch carrying an old resourceVersion', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'stale-patch' }, data: { v: '1' } },
    });
    await t.core.replaceNamespacedConfigMap({
      name: 'stale-patch',
      namespace: ns,
      body: { ...cm, data: { v: '2' } },
    });
    const s = await expectStatus(() =>
      t.core.patchNamespacedConfigMap(
        {
          name: 'stale-patch',
          namespace: ns,
          body: { metadata: { resourceVersion: cm.metadata!.resourceVersion }, data: { v: '3' } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('configmaps', 'stale-patch'),
    });
  });

  it('is 409 Conflict on a custom resource, named with its group', async () => {
    const di = (await t.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('stale-di'),
    })) as k8s.KubernetesObject;
    await t.custom.replaceNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      name: 'stale-di',
      body: { ...di, spec: { type: 'other' } },
    });
    const s = await expectStatus(() =>
      t.custom.replaceNamespacedCustomObject({
        ...DEPLOYITEMS,
        namespace: ns,
        name: 'stale-di',
        body: { ...di, spec: { type: 'third' } },
      }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage('deployitems.landscaper.gardener.cloud', 'stale-di'),
    });
  });

  // Known embedded-server bug (operations.ts delete words the precondition conflict as the storage layer, not rest.BeforeDelete): remove .failing once fixed.

  it('is 409 Conflict on a delete whose resourceVersion precondition fails', async () => {
    const cm = await t.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'stale-delete' } },
    });
    const now = await t.core.patchNamespacedConfigMap(
      { name: 'stale-delete', namespace: ns, body: { data: { v: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const s = await expectStatus(() =>
      t.core.deleteNamespacedConfigMap({
        name: 'stale-delete',
        namespace: ns,
        body: { preconditions: { resourceVersion: cm.metadata!.resourceVersion } },
      }),
    );
    // rest.BeforeDelete checks preconditions first and names the kind, not the resource
    expect(s).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "stale-delete": the ResourceVersion in the precondition (${cm.metadata!.resourceVersion}) does not match the ResourceVersion in record (${now.metadata!.resourceVersion}). The object might have been modified`,
    });
    await t.core.readNamespacedConfigMap({ name: 'stale-delete', namespace: ns });
  });
});

describe('create of an existing name', () => {
  it('is 409 AlreadyExists for a ConfigMap', async () => {
    await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'twice' } } });
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'twice' } } }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "twice" already exists',
    });
    expect(s.details).toMatchObject({ name: 'twice', kind: 'configmaps' });
  });

  it('is 409 AlreadyExists for a Deployment, named with its group', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('twice') });
    const s = await expectStatus(() =>
      t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('twice') }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'deployments.apps "twice" already exists',
    });
    expect(s.details).toMatchObject({ name: 'twice', group: 'apps', kind: 'deployments' });
  });

  it('is 409 AlreadyExists for a custom resource', async () => {
    await t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, body: deployItem('twice') });
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, body: deployItem('twice') }),
    );
    expect(s).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'deployitems.landscaper.gardener.cloud "twice" already exists',
    });
  });
});

describe('missing objects', () => {
  it.each([
    ['read', () => t.core.readNamespacedConfigMap({ name: 'absent', namespace: ns })],
    [
      'replace',
      () =>
        t.core.replaceNamespacedConfigMap({
          name: 'absent',
          namespace: ns,
          body: { metadata: { name: 'absent' } },
        }),
    ],
    [
      'patch',
      () =>
        t.core.patchNamespacedConfigMap(
          { name: 'absent', namespace: ns, body: { data: { a: 'b' } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
    ],
    ['delete', () => t.core.deleteNamespacedConfigMap({ name: 'absent', namespace: ns })],
  ])('%s of a missing ConfigMap is 404 configmaps "absent" not found', async (_verb, call) => {
    const s = await expectStatus(call);
    expect(s).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "absent" not found' });
    expect(s.details).toMatchObject({ name: 'absent', kind: 'configmaps' });
  });

  it('names the group of a missing Deployment and custom resource', async () => {
    expect(
      await expectStatus(() => t.apps.readNamespacedDeployment({ name: 'absent', namespace: ns })),
    ).toMatchObject({ code: 404, message: 'deployments.apps "absent" not found' });
    expect(
      await expectStatus(() =>
        t.custom.getNamespacedCustomObject({ ...DEPLOYITEMS, namespace: ns, name: 'absent' }),
      ),
    ).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'deployitems.landscaper.gardener.cloud "absent" not found',
    });
  });
});

describe('namespace mismatch', () => {
  it('is 400 BadRequest when the body names another namespace than the URL', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'elsewhere', namespace: 'default' } },
      }),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
  });
});

describe('field validation', () => {
  // Known embedded-server bug (decode.ts decodeObject does not wrap the strict error): remove .failing once fixed.
  it('Strict refuses an unknown field of a built-in kind with a 400 strict decoding error', async () => {
    const s = await expectStatus(() =>
      t.core.createNamespacedConfigMap(
        { namespace: ns, body: { metadata: { name: 'strict' } }, fieldValidation: 'Strict' },
        addToBody({ bogus: true }),
      ),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
  });

  // Known embedded-server bug (decode.ts decodeObject does not wrap the strict error): remove .failing once fixed.

  it('Strict refuses an unknown field of a custom resource with its path', async () => {
    const s = await expectStatus(() =>
      t.custom.createNamespacedCustomObject({
        ...DEPLOYITEMS,
        namespace: ns,
        body: deployItem('strict', { type: 'mock', bogus: 1 }),
        fieldValidation: 'Strict',
      }),
    );
    expect(s).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'DeployItem in version "v1alpha1" cannot be handled as a DeployItem: strict decoding error: unknown field "spec.bogus"',
    });
  });

  it('Warn (the default) stores the object without the field and answers a Warning header', async () => {
    const res = await t.custom.createNamespacedCustomObjectWithHttpInfo({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('warned', { type: 'mock', bogus: 1 }),
    });
    expect(res.httpStatusCode).toBe(201);
    expect(res.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""');
    const stored = (await t.custom.getNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: ns,
      name: 'warned',
    })) as { spec: Record<string, unknown> };
    expect(stored.spec).toEqual({ type: 'mock' });
  });

  it('Warn reports an unknown field of a built-in kind too', async () => {
    const res = await t.core.createNamespacedConfigMapWithHttpInfo(
      { namespace: ns, body: { metadata: { name: 'warned' } } },
      addToBody({ bogus: true }),
    );
    expect(res.httpStatusCode).toBe(201);
    expect(res.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
  });

  it('Ignore drops the field silently', async () => {
    const res = await t.custom.createNamespacedCustomObjectWithHttpInfo({
      ...DEPLOYITEMS,
      namespace: ns,
      body: deployItem('ignored', { type: 'mock', bogus: 1 }),
      fieldValidation: 'Ignore',
    });
    expect(res.httpStatusCode).toBe(201);
    expect(res.headers.warning).toBeUndefined();
    expect((res.data as { spec: object }).spec).toEqual({ type: 'mock' });
  });
});

describe('no token', () => {
  it('answers 401 Unauthorized to client-node without credentials', async () => {
    const kc = new k8s.KubeConfig();
    const cluster = t.kc.getCurrentCluster()!;
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'anonymous' }],
      contexts: [{ name: 'anon', cluster: cluster.name, user: 'anonymous' }],
      currentContext: 'anon',
    });
    // client-node's generated code does not parse the body of a 401; its code is what it exposes
    const s = await expectStatus(() =>
      kc
        .makeApiClient(k8s.CoreV1Api)
        .createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'anon' } } }),
    );
    expect(s.code).toBe(401);
    await expectStatus(() => t.core.readNamespacedConfigMap({ name: 'anon', namespace: ns }));
  });

  it('answers the Unauthorized Status body to a write without credentials', async () => {
    const res = await t.raw(`/api/v1/namespaces/${ns}/configmaps`, {
      method: 'POST',
      body: JSON.stringify({ metadata: { name: 'anon' } }),
      token: null,
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });
});
