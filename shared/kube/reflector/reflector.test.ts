/**
 * The Reflector's connection to the API server (the embedded one, over TLS): a watch the server
 * ends (its timeoutSeconds) leaves the connection open, and the next watch goes over it, as
 * client-go's transport reuses its connection across a reflector's re-watches; a watch this side
 * aborts (a re-list) closes it.
 */
import { jest } from '@jest/globals';
import https from 'node:https';
import { Writable } from 'node:stream';
import tls from 'node:tls';
import { startTestServer, type TestServer } from '../../../test/support/cluster.js';
import { GVK } from '../../api/gvk.js';
import { createLogger } from '../../log/index.js';
import { createKubeClient } from '../index.js';
import { abortableSleep } from './sleep.js';
import { Reflector } from './reflector.js';

const NS = 'reflector-conn';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  const client = createKubeClient(server.kc, { fieldManager: 'reflector-test' });
  await client.create(GVK.Namespace, { metadata: { name: NS } });
  await client.create(GVK.ConfigMap, { metadata: { name: 'one', namespace: NS }, data: { v: '1' } });
});
afterAll(async () => {
  await server.stop();
});

async function waitFor(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function reflector(): Reflector {
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  return new Reflector({
    kubeConfig: server.kc,
    kind: { ...GVK.ConfigMap },
    namespace: NS,
    labelSelector: '',
    accept: () => true,
    onChanges: () => undefined,
    sleep: abortableSleep,
    logger: createLogger({ name: 'reflector-test', destination: quiet }),
    // the server ends each watch after a second: the reflector watches again from where it was
    watchTimeoutSeconds: 1,
  });
}

it('goes over one TLS connection for its list and the watches the server ends', async () => {
  const connects = jest.spyOn(tls, 'connect');
  const requests = jest.spyOn(https, 'request');
  const watches = (): number =>
    requests.mock.calls.filter(([url]) => String(url).includes('watch=true')).length;
  const r = reflector();
  try {
    r.start();
    await r.ready;
    // three watches ended by the server and a fourth one open
    await waitFor('four watches', () => watches() >= 4);
    expect(connects).toHaveBeenCalledTimes(1);
  } finally {
    await r.stop();
    connects.mockRestore();
    requests.mockRestore();
  }
});

it('opens a new connection after a watch it aborted itself (a re-list)', async () => {
  const connects = jest.spyOn(tls, 'connect');
  const requests = jest.spyOn(https, 'request');
  const lists = (): number =>
    requests.mock.calls.filter(([url]) => !String(url).includes('watch=true')).length;
  const r = reflector();
  try {
    r.start();
    await r.ready;
    await waitFor('the first watch', () => requests.mock.calls.length >= 2);
    r.relist();
    await waitFor('the second list', () => lists() >= 2);
    expect(connects).toHaveBeenCalledTimes(2);
  } finally {
    await r.stop();
    connects.mockRestore();
    requests.mockRestore();
  }
});
