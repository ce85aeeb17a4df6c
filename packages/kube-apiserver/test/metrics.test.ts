/**
 * `/metrics` as kube-apiserver serves it: request counts by verb, resource, scope and code, and
 * the stored objects per resource.
 */
import { startTestServer, type TestServer } from './support/cluster.js';
import { freshNamespace } from './conformance.js';

let t: TestServer;
let ns: string;
beforeAll(async () => {
  t = await startTestServer();
  ns = await freshNamespace(t, 'metrics');
});
afterAll(() => t.stop());

/** The value of the series with exactly these labels, or undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const series = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = `${name}{${series}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

const LIST_CONFIGMAPS = {
  code: '200',
  component: 'apiserver',
  dry_run: '',
  group: '',
  resource: 'configmaps',
  scope: 'namespace',
  subresource: '',
  verb: 'LIST',
  version: 'v1',
};

it('counts resource requests by verb, scope and code, and serves the Prometheus text format', async () => {
  const before = await t.raw('/metrics');
  expect(before.status).toBe(200);
  expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(before.text).toContain('# TYPE apiserver_request_total counter');
  const listed = sample(before.text, 'apiserver_request_total', LIST_CONFIGMAPS) ?? 0;

  await t.core.listNamespacedConfigMap({ namespace: ns });
  await t.core.listNamespacedConfigMap({ namespace: ns });
  await t.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'm1' } } });
  await t.core.readNamespacedConfigMap({ namespace: ns, name: 'nope' }).catch(() => undefined);
  await t.raw(`/api/v1/namespaces/${ns}/configmaps/m1?fieldManager=t`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm1' }, data: { a: 'b' } }),
  });

  const after = (await t.raw('/metrics')).text;
  expect(sample(after, 'apiserver_request_total', LIST_CONFIGMAPS)).toBe(listed + 2);
  const one = { ...LIST_CONFIGMAPS, scope: 'resource' };
  expect(sample(after, 'apiserver_request_total', { ...one, code: '201', verb: 'POST' })).toBe(1);
  expect(sample(after, 'apiserver_request_total', { ...one, code: '404', verb: 'GET' })).toBe(1);
  expect(sample(after, 'apiserver_request_total', { ...one, verb: 'APPLY' })).toBe(1);
  // the namespace made by freshNamespace and the one ConfigMap created here (plus kube-root-ca.crt)
  expect(sample(after, 'apiserver_storage_objects', { resource: 'namespaces' })).toBeGreaterThanOrEqual(1);
  expect(sample(after, 'apiserver_storage_objects', { resource: 'configmaps' })).toBeGreaterThanOrEqual(2);
});
