/**
 * The off-by-default traffic counter of a cluster: requests, request and response body bytes and
 * errors by verb and resource, over real HTTPS requests (chunked and Content-Length bodies, a
 * watch, a 404, a non-resource path); nothing counted when it is off.
 */
import { request } from 'node:https';
import { rawRequest } from '../../test/support/cluster.js';
import { startApiServer, type ApiServer } from '../index.js';
import { trafficDelta, trafficTotal, type TrafficSnapshot } from './traffic.js';
import { productCrdFiles } from '../../test/support/crds.js';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startApiServer({
    crdFiles: productCrdFiles(),
    clusters: [{ name: 'main', countTraffic: true }, 'plain'],
  });
});
afterAll(() => srv.stop());

const traffic = (): TrafficSnapshot => srv.cluster('main').traffic!.snapshot();
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const NS = '/api/v1/namespaces/default/configmaps';

/** Runs `fn` and returns what the counter saw meanwhile. */
async function during(fn: () => Promise<void>): Promise<TrafficSnapshot> {
  const before = traffic();
  await fn();
  return trafficDelta(traffic(), before);
}

it('is off unless asked for', async () => {
  expect(srv.cluster('plain').traffic).toBeUndefined();
  expect((await rawRequest(srv, 'plain', NS)).status).toBe(200);
});

it('counts a create with a chunked body, a get, a list and a 404 by verb and resource, body bytes exactly', async () => {
  const body = JSON.stringify({ metadata: { name: 'c1' }, data: { k: 'v'.repeat(1000) } });
  let created = '';
  let got = '';
  let listed = '';
  let missing = '';
  const seen = await during(async () => {
    const r = await rawRequest(srv, 'main', NS, { method: 'POST', body });
    expect(r.status).toBe(201);
    expect(r.json.data.k).toHaveLength(1000);
    created = r.text;
    got = (await rawRequest(srv, 'main', `${NS}/c1`)).text;
    listed = (await rawRequest(srv, 'main', NS)).text;
    const nf = await rawRequest(srv, 'main', `${NS}/absent`);
    expect(nf.status).toBe(404);
    missing = nf.text;
  });
  expect(seen).toEqual({
    'create configmaps': { requests: 1, requestBytes: bytes(body), responseBytes: bytes(created), errors: 0 },
    'get configmaps': { requests: 2, requestBytes: 0, responseBytes: bytes(got) + bytes(missing), errors: 1 },
    'list configmaps': { requests: 1, requestBytes: 0, responseBytes: bytes(listed), errors: 0 },
  });
  expect(trafficTotal(seen)).toEqual({
    requests: 4,
    requestBytes: bytes(body),
    responseBytes: bytes(created) + bytes(got) + bytes(listed) + bytes(missing),
    errors: 1,
  });
});

it('counts a body sent with Content-Length, subresources, and non-resource paths', async () => {
  const patch = JSON.stringify({ data: { k: 'w' } });
  const seen = await during(async () => {
    const r = await rawRequest(srv, 'main', `${NS}/c1`, {
      method: 'PATCH',
      body: patch,
      headers: {
        'Content-Type': 'application/merge-patch+json',
        'Content-Length': String(bytes(patch)),
      },
    });
    expect(r.json.data).toEqual({ k: 'w' });
    await rawRequest(srv, 'main', '/version');
    await rawRequest(srv, 'main', '/apis/apps/v1/namespaces/default/deployments/none/scale');
  });
  expect(seen['patch configmaps']).toMatchObject({ requests: 1, requestBytes: bytes(patch), errors: 0 });
  expect(seen['GET /version']).toMatchObject({ requests: 1, errors: 0 });
  expect(seen['get deployments/scale']).toMatchObject({ requests: 1, errors: 1 });
});

/** Opens a watch, waits for `count` lines, aborts it; returns the bytes received. */
function watchLines(path: string, count: number, afterOpen: () => Promise<void>): Promise<number> {
  const c = srv.cluster('main');
  const ca = c.kubeconfigYaml().match(/certificate-authority-data: (\S+)/)![1];
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, c.url),
      { headers: { Authorization: `Bearer ${c.token}` }, ca: Buffer.from(ca, 'base64') },
      (res) => {
        let received = '';
        res.on('data', (d: Buffer) => {
          received += d.toString('utf8');
          if (received.split('\n').filter(Boolean).length >= count) {
            req.destroy();
            resolve(bytes(received));
          }
        });
        afterOpen().catch(reject);
      },
    );
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.end();
  });
}

it('counts the bytes of a watch as its events are written', async () => {
  let received = 0;
  const seen = await during(async () => {
    received = await watchLines(`${NS}?watch=true&fieldSelector=metadata.name%3Dc2`, 1, async () => {
      await rawRequest(srv, 'main', NS, {
        method: 'POST',
        body: JSON.stringify({ metadata: { name: 'c2' } }),
      });
    });
  });
  expect(received).toBeGreaterThan(0);
  expect(seen['watch configmaps']).toEqual({
    requests: 1,
    requestBytes: 0,
    responseBytes: received,
    errors: 0,
  });
});

it('resets', () => {
  srv.cluster('main').traffic!.reset();
  expect(traffic()).toEqual({});
});
