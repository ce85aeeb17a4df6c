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

type Calls = { connects: number; requests: string[] };

/** Runs `body` with a started reflector while counting TLS connects and the URLs requested. */
async function counting(body: (r: Reflector, calls: () => Calls) => Promise<void>): Promise<void> {
  const connects = jest.spyOn(tls, 'connect');
  const requests = jest.spyOn(https, 'request');
  const r = reflector();
  try {
    r.start();
    await r.ready;
    await body(r, () => ({
      connects: connects.mock.calls.length,
      requests: requests.mock.calls.map(([url]) => String(url)),
    }));
  } finally {
    await r.stop();
    connects.mockRestore();
    requests.mockRestore();
  }
}

const isWatch = (url: string): boolean => url.includes('watch=true');

it('goes over one TLS connection for its list and the watches the server ends', async () => {
  await counting(async (_r, calls) => {
    // three watches ended by the server and a fourth one open
    await waitFor('four watches', () => calls().requests.filter(isWatch).length >= 4);
    expect(calls().connects).toBe(1);
  });
});

it('opens a new connection after a watch it aborted itself (a re-list)', async () => {
  await counting(async (r, calls) => {
    await waitFor('the first watch', () => calls().requests.filter(isWatch).length >= 1);
    r.relist();
    await waitFor('the second list', () => calls().requests.filter((u) => !isWatch(u)).length >= 2);
    expect(calls().connects).toBe(2);
  });
});
