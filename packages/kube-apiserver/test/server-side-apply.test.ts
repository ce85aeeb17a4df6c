/**
 * Conformance: server-side apply over HTTP as kubectl drives it (PATCH with
 * `application/apply-patch+yaml`, `fieldManager`, `force`): create by apply, managedFields on
 * GET, conflicts worded as a real API server words them, --force-conflicts, removal on re-apply,
 * the status subresource, managedFields of ordinary writes, and the upgrade of an object
 * managed by client-side apply to server-side apply.
 */
import { startTestServer, type TestServer } from './support/cluster.js';
import { freshNamespace } from './conformance.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const KUBECTL_UA = 'kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'ssa');
});
afterAll(() => t.stop());

const cmPath = (name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;
const deployPath = (name: string): string => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;

function configMap(name: string, data: Record<string, string>, metadata: Record<string, unknown> = {}): any {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...metadata }, data };
}

/** kubectl apply --server-side: PATCH …?fieldManager=…&fieldValidation=Strict&force=… */
function apply(
  path: string,
  body: unknown,
  manager = 'kubectl',
  force = false,
): ReturnType<TestServer['raw']> {
  const query = new URLSearchParams({
    fieldManager: manager,
    fieldValidation: 'Strict',
    force: String(force),
  });
  return t.raw(`${path}?${query.toString()}`, {
    method: 'PATCH',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/apply-patch+yaml', 'User-Agent': KUBECTL_UA },
  });
}

const managers = (obj: any): string[] =>
  ((obj.metadata.managedFields ?? []) as { manager: string; operation: string }[]).map(
    (e) => `${e.manager}/${e.operation}`,
  );
const entryOf = (obj: any, manager: string): any =>
  obj.metadata.managedFields.find((e: any) => e.manager === manager);

describe('apply creates and updates', () => {
  it('creates with 201 and shows managedFields on the response and on GET', async () => {
    const res = await apply(cmPath('created'), configMap('created', { a: '1' }));
    expect(res.status).toBe(201);
    expect(res.json.data).toEqual({ a: '1' });
    const entry = {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    };
    expect(res.json.metadata.managedFields).toEqual([entry]);
    const got = await t.raw(cmPath('created'));
    expect(got.json.metadata.managedFields).toEqual([entry]);
    expect(got.json.metadata.uid).toBeDefined();
  });

  it('takes YAML bodies, updates with 200, and removes what a re-apply leaves out', async () => {
    await apply(cmPath('yaml'), configMap('yaml', { a: '1', b: '2' }));
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\n  namespace: ${ns}\ndata:\n  a: "3"\n`;
    const res = await apply(cmPath('yaml'), yaml);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ a: '3' });
  });

  it('applies a Deployment: containers keyed by name, ports by containerPort and protocol', async () => {
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
        },
      },
    };
    const res = await apply(deployPath('web'), body);
    expect(res.status).toBe(201);
    const fields = entryOf(res.json, 'kubectl').fieldsV1;
    expect(fields['f:spec']['f:template']['f:spec']['f:containers']).toEqual({
      'k:{"name":"nginx"}': {
        '.': {},
        'f:image': {},
        'f:name': {},
        'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
      },
    });
    // defaults the server adds are nobody's
    expect(res.json.spec.revisionHistoryLimit).toBe(10);
    expect(fields['f:spec']['f:revisionHistoryLimit']).toBeUndefined();
  });
});

describe('conflicts', () => {
  beforeAll(async () => {
    expect((await apply(cmPath('shared'), configMap('shared', { a: '1', b: '1' }))).status).toBe(201);
  });

  it('a second manager changing a field is refused with 409, worded as the API server words it', async () => {
    const res = await apply(cmPath('shared'), configMap('shared', { a: '2' }), 'other');
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl": .data.a',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.data.a' }],
      },
      code: 409,
    });
  });

  it('the same value is shared, not a conflict', async () => {
    const res = await apply(cmPath('shared'), configMap('shared', { b: '1' }), 'sharer');
    expect(res.status).toBe(200);
    expect(entryOf(res.json, 'sharer').fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
    expect(entryOf(res.json, 'kubectl').fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
  });

  it('force=true (--force-conflicts) moves the field to the applier', async () => {
    const res = await apply(cmPath('shared'), configMap('shared', { a: '2' }), 'other', true);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ a: '2', b: '1' });
    expect(entryOf(res.json, 'other').fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    expect(entryOf(res.json, 'kubectl').fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
  });
});

describe('refused apply requests', () => {
  it('needs a fieldManager (422)', async () => {
    const res = await t.raw(`${cmPath('nofm')}?force=false`, {
      method: 'PATCH',
      body: JSON.stringify(configMap('nofm', {})),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });

  it('refuses managedFields in the configuration (400)', async () => {
    const res = await apply(cmPath('withmf'), configMap('withmf', {}, { managedFields: [{ manager: 'x' }] }));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('metadata.managedFields must be nil');
  });
});

describe('managedFields of other writes', () => {
  it('records the fieldManager parameter, else the User-Agent, as an Update', async () => {
    await apply(cmPath('edited'), configMap('edited', { a: '1' }));
    const cur = (await t.raw(cmPath('edited'))).json;
    const put = (body: unknown, query: string): ReturnType<TestServer['raw']> =>
      t.raw(`${cmPath('edited')}${query}`, {
        method: 'PUT',
        body: JSON.stringify(body),
        headers: { 'User-Agent': KUBECTL_UA },
      });
    const edited = (await put({ ...cur, data: { a: '2' } }, '?fieldManager=kubectl-edit')).json;
    expect(managers(edited)).toEqual(['kubectl-edit/Update']);
    expect(entryOf(edited, 'kubectl-edit').fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    const byAgent = (await put({ ...edited, data: { a: '2', c: '3' } }, '')).json;
    expect(managers(byAgent).sort()).toEqual(['kubectl-edit/Update', 'kubectl/Update']);
    expect(entryOf(byAgent, 'kubectl').fieldsV1).toEqual({ 'f:data': { 'f:c': {} } });
  });

  it('a status apply is recorded with subresource "status" and owns only status', async () => {
    const body = (name: string, extra: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns },
      ...extra,
    });
    const spec = {
      replicas: 2,
      selector: { matchLabels: { app: 'st' } },
      template: {
        metadata: { labels: { app: 'st' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      },
    };
    expect((await apply(deployPath('st'), body('st', { spec }))).status).toBe(201);
    const res = await apply(
      `${deployPath('st')}/status`,
      body('st', { spec: { replicas: 9 }, status: { observedGeneration: 1 } }),
      'status-writer',
      true,
    );
    expect(res.status).toBe(200);
    expect(res.json.spec.replicas).toBe(2);
    expect(res.json.status.observedGeneration).toBe(1);
    expect(entryOf(res.json, 'status-writer')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {} } },
    });
  });
});

describe('from client-side apply to server-side apply, as kubectl 1.32 does it', () => {
  const name = 'upgraded';
  const original = configMap(name, { a: '1', b: '1' });

  it('upgrades without --force-conflicts and drops what the new configuration leaves out', async () => {
    // kubectl apply (client-side): create with the last-applied annotation
    const lastApplied = `${JSON.stringify({ apiVersion: 'v1', data: original.data, kind: 'ConfigMap', metadata: original.metadata })}\n`;
    const createdRes = await t.raw(
      `/api/v1/namespaces/${ns}/configmaps?fieldManager=kubectl-client-side-apply&fieldValidation=Strict`,
      {
        method: 'POST',
        body: JSON.stringify({
          ...original,
          metadata: { ...original.metadata, annotations: { [LAST_APPLIED]: lastApplied } },
        }),
        headers: { 'User-Agent': KUBECTL_UA },
      },
    );
    expect(createdRes.status).toBe(201);
    expect(managers(createdRes.json)).toEqual(['kubectl-client-side-apply/Update']);

    // kubectl apply --server-side: fields still as last applied are taken over without conflict
    const config = configMap(name, { a: '2' });
    const first = await apply(cmPath(name), config);
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({ a: '2', b: '1' });
    expect(first.json.metadata.annotations[LAST_APPLIED]).toBe(
      `{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"${name}","namespace":"${ns}"}}\n`,
    );

    // kubectl keeps the annotation owned by an applier of its own
    const annotation = first.json.metadata.annotations[LAST_APPLIED];
    const keep = await apply(
      cmPath(name),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns, annotations: { [LAST_APPLIED]: annotation } },
      },
      'kubectl-last-applied',
    );
    expect(keep.status).toBe(200);

    // kubectl migrates the client-side apply manager into its apply entry (a JSON patch)
    const entries: Record<string, any>[] = keep.json.metadata.managedFields;
    const csa = entries.find((e) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update');
    const upgraded = entries
      .filter((e) => e !== csa)
      .map((e) =>
        e.manager === 'kubectl' && e.operation === 'Apply'
          ? { ...e, fieldsV1: unionFields(e.fieldsV1, csa!.fieldsV1) }
          : e,
      );
    const migrated = await t.raw(cmPath(name), {
      method: 'PATCH',
      body: JSON.stringify([
        { op: 'replace', path: '/metadata/managedFields', value: upgraded },
        { op: 'replace', path: '/metadata/resourceVersion', value: keep.json.metadata.resourceVersion },
      ]),
      headers: { 'Content-Type': 'application/json-patch+json', 'User-Agent': KUBECTL_UA },
    });
    expect(migrated.status).toBe(200);
    expect(managers(migrated.json).sort()).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);

    // ... and sends its apply again: now b, which the configuration left out, goes
    const again = await apply(cmPath(name), config);
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ a: '2' });
    expect(entryOf(again.json, 'kubectl').fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    expect(again.json.metadata.annotations[LAST_APPLIED]).toBe(annotation);
  });

  it('other managers still conflict with client-side apply', async () => {
    const lastApplied = `${JSON.stringify(configMap('csa-only', { a: '1' }))}\n`;
    await t.raw(`/api/v1/namespaces/${ns}/configmaps?fieldManager=kubectl-client-side-apply`, {
      method: 'POST',
      body: JSON.stringify(
        configMap('csa-only', { a: '1' }, { annotations: { [LAST_APPLIED]: lastApplied } }),
      ),
    });
    const res = await apply(cmPath('csa-only'), configMap('csa-only', { a: '2' }), 'helm');
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a',
    );
  });
});

/** The union of two fieldsV1 trees (what csaupgrade does with the decoded sets). */
function unionFields(a: Record<string, any>, b: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? unionFields(out[k], v) : v;
  return out;
}
