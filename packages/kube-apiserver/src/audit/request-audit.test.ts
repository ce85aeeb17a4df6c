/**
 * The request audit log (`auditLogPath`) over real HTTPS requests: one audit.k8s.io/v1 Event of
 * level Metadata per request, with the subresource, the user and the answer's code.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type RequestAuditEvent } from '../index.js';
import { requestAttributes } from './request-audit.js';
import { productCrdFiles } from '../../test/support/crds.js';
import { rawRequest } from '../../test/support/cluster.js';

let dir: string;
let srv: ApiServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'request-audit-'));
});

afterAll(async () => {
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

it('writes one audit.k8s.io/v1 Metadata event per request, with the subresource and the answer', async () => {
  const file = join(dir, 'audit.log');
  srv = await startApiServer({ crdFiles: productCrdFiles(), auditLogPath: file });
  const server = srv;
  const send = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await rawRequest(server, 'main', path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return res.json;
  };
  await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'p' } });
  await send('POST', '/apis/core.gardener.cloud/v1beta1/seeds', {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: { name: 'a' },
    spec: {
      provider: { type: 't', region: 'r' },
      networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
    },
  });
  const shoot = await send('POST', '/apis/core.gardener.cloud/v1beta1/namespaces/p/shoots', {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 's', namespace: 'p' },
    spec: { region: 'r', provider: { type: 't' } },
  });
  await send('PUT', '/apis/core.gardener.cloud/v1beta1/namespaces/p/shoots/s/binding', {
    ...shoot,
    spec: { region: 'r', provider: { type: 't' }, seedName: 'a' },
  });
  await send('GET', '/apis/core.gardener.cloud/v1beta1/namespaces/p/shoots/missing');
  await srv.stop();
  srv = undefined;
  const events = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestAuditEvent);
  const binding = events.find((e) => e.objectRef?.subresource === 'binding');
  expect(binding).toMatchObject({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    stage: 'ResponseComplete',
    verb: 'update',
    requestURI: '/apis/core.gardener.cloud/v1beta1/namespaces/p/shoots/s/binding',
    objectRef: {
      resource: 'shoots',
      subresource: 'binding',
      namespace: 'p',
      name: 's',
      apiGroup: 'core.gardener.cloud',
      apiVersion: 'v1beta1',
    },
    responseStatus: { code: 200 },
    annotations: { 'landscape.dev/cluster': 'main' },
  });
  expect(binding?.user.username).toEqual(expect.any(String));
  expect(events.find((e) => e.objectRef?.name === 'missing')).toMatchObject({
    verb: 'get',
    responseStatus: { code: 404 },
  });
  expect(events.filter((e) => e.verb === 'create').map((e) => e.objectRef?.resource)).toEqual([
    'namespaces',
    'seeds',
    'shoots',
  ]);
});

describe('requestAttributes: verb and objectRef from the RequestInfo, as upstream audit', () => {
  const u = (path: string): URL => new URL(path, 'https://localhost');
  it.each<[string, string, string, { verb: string; objectRef?: Record<string, string> }]>([
    ['a non-resource GET', 'GET', '/version', { verb: 'get' }],
    ['discovery of a group version', 'GET', '/apis/apps/v1', { verb: 'get' }],
    [
      'a list',
      'GET',
      '/api/v1/namespaces/ns/pods',
      { verb: 'list', objectRef: { resource: 'pods', namespace: 'ns', apiVersion: 'v1' } },
    ],
    [
      'a list selecting one name (a name as RBAC sees it)',
      'GET',
      '/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp',
      { verb: 'list', objectRef: { resource: 'pods', namespace: 'ns', name: 'p', apiVersion: 'v1' } },
    ],
    [
      'a watch',
      'GET',
      '/apis/apps/v1/deployments?watch=true',
      { verb: 'watch', objectRef: { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1' } },
    ],
    [
      'a status patch',
      'PATCH',
      '/apis/apps/v1/namespaces/ns/deployments/d/status',
      {
        verb: 'patch',
        objectRef: {
          resource: 'deployments',
          subresource: 'status',
          namespace: 'ns',
          name: 'd',
          apiGroup: 'apps',
          apiVersion: 'v1',
        },
      },
    ],
    [
      'a delete of a collection',
      'DELETE',
      '/api/v1/namespaces/ns/configmaps',
      { verb: 'deletecollection', objectRef: { resource: 'configmaps', namespace: 'ns', apiVersion: 'v1' } },
    ],
    [
      'a namespace is named in itself',
      'DELETE',
      '/api/v1/namespaces/ns',
      {
        verb: 'delete',
        objectRef: { resource: 'namespaces', namespace: 'ns', name: 'ns', apiVersion: 'v1' },
      },
    ],
  ])('%s', (_, method, path, expected) => {
    expect(requestAttributes(method, u(path))).toEqual(expected);
  });
});
