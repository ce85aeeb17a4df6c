import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../../test/support/cluster.js';
import type { AddressInfo } from 'node:net';
import { createKubeClient } from './client.js';
import { KeepAliveAgents } from './http.js';
import { kubeConfigFromYaml } from './config.js';

/** A plain-HTTP server that answers `{}` and counts the connections it accepts. */
async function countingServer(): Promise<{
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const kubeconfig = (server: string): string => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;

describe('keepAlive', () => {
  it.each([
    [false, 3],
    [true, 1],
  ])('keepAlive %s: three sequential requests open %i connection(s)', async (keepAlive, expected) => {
    const server = await countingServer();
    try {
      const client = createKubeClient(kubeConfigFromYaml(kubeconfig(server.url)), { keepAlive });
      for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/version' });
      expect(server.connections()).toBe(expected);
    } finally {
      await server.close();
    }
  });
});

describe('keepAlive over TLS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each([
    [false, 4, Infinity],
    [true, 1, 1],
  ])(
    'keepAlive %s: three parallel requests and one after the server closed the connections build the TLS context %i to %d time(s)',
    async (keepAlive, least, most) => {
      // a kept socket the server closed may be picked before its close is seen: retried, as in use
      const client = createKubeClient(server.kc, { keepAlive, retryTransient: true });
      const get = (): Promise<unknown> => client.request({ method: 'GET', path: '/version' });
      let built = 0;
      const counting = async (step: () => Promise<unknown>): Promise<void> => {
        const contexts = jest.spyOn(tls, 'createSecureContext');
        try {
          await step();
          built += contexts.mock.calls.length;
        } finally {
          contexts.mockRestore();
        }
      };
      await counting(() => Promise.all([get(), get(), get()]));
      // the server closes every connection (and builds its own context again: not counted)
      const cluster = server.server.clusters()[0];
      await cluster.stop();
      await cluster.start();
      await counting(get);
      expect(built).toBeGreaterThanOrEqual(least);
      expect(built).toBeLessThanOrEqual(most);
    },
  );
});

describe('KeepAliveAgents', () => {
  const url = new URL('https://127.0.0.1:6443/');
  const base = (options: https.AgentOptions): https.Agent => new https.Agent(options);

  // (http: so that no TLS context is built from these stand-in PEMs; the identity counts the same)
  it('keeps one agent while the TLS identity is the same, and a new one when it changes', () => {
    const url = new URL('http://127.0.0.1:6443/');
    const agents = new KeepAliveAgents();
    try {
      const first = agents.agentFor(base({ ca: 'CA', cert: 'C1', key: 'K1' }), url);
      expect(first).toBeInstanceOf(http.Agent);
      expect(agents.agentFor(base({ ca: 'CA', cert: 'C1', key: 'K1' }), url)).toBe(first);
      // a client certificate renewed (an exec plugin's): a new agent with it
      const renewed = agents.agentFor(base({ ca: 'CA', cert: 'C2', key: 'K2' }), url);
      expect(renewed).not.toBe(first);
      expect((renewed as http.Agent & { options: https.AgentOptions }).options.cert).toBe('C2');
    } finally {
      agents.destroy();
    }
  });

  it("uses a proxy agent (another class than Node's) as given", () => {
    class ProxyAgent extends https.Agent {}
    const proxy = new ProxyAgent({ ca: 'CA' });
    const agents = new KeepAliveAgents();
    expect(agents.agentFor(proxy, url)).toBe(proxy);
    proxy.destroy();
  });
});
