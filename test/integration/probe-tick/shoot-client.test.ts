/**
 * The shoot probe's client against a real TLS server (an embedded API server behind a TCP proxy
 * that counts connections): a probe's requests share one new connection with a full handshake,
 * closed when the probe ends; the next probe opens a new one and resumes no session. Only the TLS
 * context is built once per kubeconfig.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { kubeConfigFromYaml } from '../../../shared/kube/index.js';
import { shootClientFactory } from '../../../functions/probe-tick/shootclient.js';

let server: ApiServer;
let proxy: net.Server;
let port = 0;
const sockets: net.Socket[] = [];
let connections = 0;
/** Client connections the proxy saw close (a FIN or a reset). */
let ended = 0;
/** TLS handshakes whose ClientHello offered a session to resume (a non-empty session id or ticket). */
let hellos: Buffer[] = [];

beforeAll(async () => {
  server = await startApiServer({ clusters: ['shoot'] });
  const target = new URL(/server: *(\S+)/.exec(server.cluster('shoot').kubeconfigYaml())![1]);
  proxy = net.createServer((client) => {
    connections++;
    const upstream = net.connect(Number(target.port), target.hostname);
    client.once('data', (first: Buffer) => hellos.push(first));
    client.once('close', () => ended++);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    sockets.push(client, upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  port = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy.close(resolve));
  await server.stop();
});

/**
 * Whether a TLS ClientHello offers a session to resume: a TLS 1.3 pre_shared_key extension (41)
 * or a non-empty TLS 1.2 session ticket (35). (The legacy session id is no sign: TLS 1.3 clients
 * fill it with random bytes.)
 */
function offersResumption(hello: Buffer): boolean {
  let at = 5 + 4 + 2 + 32; // record header, handshake header, client_version, random
  at += 1 + hello.readUInt8(at); // session id
  at += 2 + hello.readUInt16BE(at); // cipher suites
  at += 1 + hello.readUInt8(at); // compression methods
  const end = at + 2 + hello.readUInt16BE(at);
  for (at += 2; at + 4 <= end;) {
    const type = hello.readUInt16BE(at);
    const length = hello.readUInt16BE(at + 2);
    if (type === 41 || (type === 35 && length > 0)) return true;
    at += 4 + length;
  }
  return false;
}

/** Waits for `check` (polling every 10 ms), failing with `what` after 10 s. */
const until = async (check: () => boolean, what: string): Promise<void> => {
  for (const end = Date.now() + 10_000; !check();) {
    if (Date.now() > end) throw new Error(`not reached within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

function shootKubeConfig(): ReturnType<typeof kubeConfigFromYaml> {
  const yaml = server
    .cluster('shoot')
    .kubeconfigYaml()
    .replace(/server: .*/, `server: https://127.0.0.1:${port}`);
  return kubeConfigFromYaml(yaml);
}

describe('the shoot probe client', () => {
  it("runs a probe's requests on one new connection, closes it at the end, and resumes no session in the next", async () => {
    connections = 0;
    ended = 0;
    hellos = [];
    const kc = shootKubeConfig();
    const create = shootClientFactory();
    for (let probe = 1; probe <= 3; probe++) {
      const shoot = create(kc);
      expect((await shoot.client.request({ method: 'GET', path: '/version' })).status).toBe(200);
      // the lease lists (probe.ts sends them one after the other; two at once queue on the socket)
      const lists = await Promise.all([
        shoot.client.request({ method: 'GET', path: '/api/v1/nodes' }),
        shoot.client.request({ method: 'GET', path: LEASES }),
      ]);
      expect(lists.map((r) => r.status)).toEqual([200, 200]);
      expect(connections).toBe(probe);
      shoot.close();
      await until(() => ended === probe, `connection ${probe} closed`);
      await expect(shoot.client.request({ method: 'GET', path: '/version' })).rejects.toThrow(/closed/);
    }
    expect(connections).toBe(3);
    expect(hellos.map((h) => h.readUInt8(0))).toEqual([22, 22, 22]); // TLS handshake records
    expect(hellos.map(offersResumption)).toEqual([false, false, false]);
  });

  it('opens no connection after close for a request that waited behind one close cut off', async () => {
    const kc = shootKubeConfig();
    const shoot = shootClientFactory()(kc);
    const before = connections;
    const endedBefore = ended;
    // the first takes the probe's one socket, the second waits for it; close cuts the first off
    const first = shoot.client.request({ method: 'GET', path: '/api/v1/nodes' });
    const second = shoot.client.request({ method: 'GET', path: LEASES });
    await new Promise((resolve) => setImmediate(resolve)); // both handed to the agent
    shoot.close();
    const settled = await Promise.allSettled([first, second]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // give a connection the agent might still open time to reach the proxy
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(connections - before).toBeLessThanOrEqual(1);
    await until(() => ended - endedBefore === connections - before, 'every proxied connection closed');
  });
});
