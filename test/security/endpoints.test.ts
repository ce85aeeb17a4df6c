/**
 * What the embedded landscape exposes on this machine, as `npm start` runs it by default (with
 * the functions, the broker and the sources; a Redis of the test's own):
 * - every cluster of the embedded API server, the broker ingress and the landscape's control
 *   endpoint listen on loopback only: their URLs say 127.0.0.1, the kernel's socket table (Linux)
 *   shows them bound to 127.0.0.1 and nothing else, and a connection to a non-loopback address
 *   of this machine is refused;
 * - each requires its bearer token: 401 without one and with a wrong one, the right one works;
 * - on a cluster, every function's Knative Service is `networking.knative.dev/visibility:
 *   cluster-local` (not reachable from outside the cluster).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { ControlFile } from '../../local/control.js';
import type { BrokerState } from '../../triggers/broker/dlq-cli.js';
import {
  REPO_ROOT,
  scaled,
  startLandscape,
  startTimeout,
  stopTimeout,
  useTestTimeout,
  type Landscape,
} from '../e2e/support.js';
import { startRedis, type TestRedis } from '../support/redis.js';

interface Endpoint {
  name: string;
  url: string;
}

let redis: TestRedis;
let l: Landscape;
let control: ControlFile;
let broker: BrokerState;

function endpoints(): Endpoint[] {
  return [
    ...Object.entries(control.clusters).map(([name, c]) => ({
      name: `API server, cluster ${name}`,
      url: c.url,
    })),
    { name: 'broker ingress', url: broker.ingressUrl },
    { name: 'landscape control endpoint', url: control.url },
  ];
}

/** The non-loopback IPv4 addresses of this machine. */
function externalIPv4(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

/** `connected`, or the error code of the attempt (ECONNREFUSED, ...). */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(scaled(3000), () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** `/proc/net/tcp` address `0100007F` → `127.0.0.1`. */
function ipv4FromProc(hex: string): string {
  return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** The local addresses of the sockets listening on a port (Linux), raw hex for IPv6; undefined elsewhere. */
function listeningOn(port: number): { v4: string[]; v6: string[] } | undefined {
  if (!existsSync('/proc/net/tcp')) return undefined;
  const table = (file: string): string[] => {
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f.length > 3 && f[3] === '0A' && parseInt(f[1].split(':')[1], 16) === port)
      .map((f) => f[1].split(':')[0]);
  };
  return { v4: table('/proc/net/tcp').map(ipv4FromProc), v6: table('/proc/net/tcp6') };
}

interface Kubeconfig {
  clusters: { cluster: { 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

/** GET over TLS with the cluster's CA; the status code. */
function apiGet(url: string, ca: string, authorization?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers: authorization ? { authorization } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the landscape as `npm start` runs it', () => {
  useTestTimeout();
  beforeAll(async () => {
    redis = await startRedis();
    l = await startLandscape(['--status-interval', '0', '--no-function-logs'], {
      functions: true,
      env: { REDIS_URL: redis.url },
    });
    control = JSON.parse(await readFile(join(l.stateDir, 'landscape.json'), 'utf8')) as ControlFile;
    broker = JSON.parse(await readFile(join(l.stateDir, 'broker.json'), 'utf8')) as BrokerState;
  }, startTimeout());

  afterAll(async () => {
    const stopped = await l?.stop();
    await redis?.stop();
    if (stopped?.code === 0) await rm(l.stateDir, { recursive: true, force: true });
    expect(stopped?.code).toBe(0);
  }, stopTimeout());

  describe('every endpoint listens on loopback only', () => {
    it('the landscape has clusters, a broker ingress and a control endpoint', () => {
      const names = endpoints().map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining(['API server, cluster main', 'broker ingress']));
      expect(Object.keys(control.clusters).length).toBeGreaterThanOrEqual(2);
    });

    it('each URL names 127.0.0.1 and the port answers there', async () => {
      for (const e of endpoints()) {
        const url = new URL(e.url);
        expect(`${e.name}: ${url.hostname}`).toBe(`${e.name}: 127.0.0.1`);
        expect(`${e.name}: ${await tryConnect('127.0.0.1', Number(url.port))}`).toBe(`${e.name}: connected`);
      }
    });

    // skipped, and said so in jest's output, where the machine cannot show it
    const socketTable = existsSync('/proc/net/tcp');
    (socketTable ? it : it.skip)(
      `each is bound to 127.0.0.1 only (the kernel socket table)${socketTable ? '' : ' [skipped: no /proc/net/tcp on this machine (not Linux)]'}`,
      () => {
        for (const e of endpoints()) {
          const bound = listeningOn(Number(new URL(e.url).port))!;
          expect({ endpoint: e.name, ...bound }).toEqual({ endpoint: e.name, v4: ['127.0.0.1'], v6: [] });
        }
      },
    );

    const addresses = externalIPv4();
    (addresses.length > 0 ? it : it.skip)(
      `a connection through a non-loopback address of this machine is refused${addresses.length > 0 ? '' : ' [skipped: this machine has no non-loopback IPv4 address]'}`,
      async () => {
        for (const address of addresses) {
          for (const e of endpoints()) {
            const result = await tryConnect(address, Number(new URL(e.url).port));
            expect(`${e.name} via ${address}: ${result}`).toBe(`${e.name} via ${address}: ECONNREFUSED`);
          }
        }
      },
    );
  });

  describe('every endpoint requires its token', () => {
    it.each([
      ['no Authorization header', undefined],
      ['a wrong bearer token', 'Bearer not-the-token'],
      ['another scheme', 'Basic YWRtaW46YWRtaW4='],
    ])(
      'API server, every cluster: 401 on a resource path with %s; 200 with its token',
      async (_what, auth) => {
        for (const [name, c] of Object.entries(control.clusters)) {
          const kc = parse(await readFile(c.kubeconfig, 'utf8')) as Kubeconfig;
          const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(
            'utf8',
          );
          const path = `${c.url}/api/v1/namespaces/default/configmaps`;
          expect(`${name}: ${await apiGet(path, ca, auth)}`).toBe(`${name}: 401`);
          expect(`${name}: ${await apiGet(path, ca, `Bearer ${kc.users[0].user.token}`)}`).toBe(
            `${name}: 200`,
          );
        }
      },
    );

    const event = {
      'ce-specversion': '1.0',
      'ce-id': 'security-test-1',
      'ce-source': '/test/security',
      'ce-type': 'dev.landscape.securitytest',
    };
    const post = (authorization?: string): Promise<Response> =>
      fetch(`${broker.ingressUrl}/`, {
        method: 'POST',
        headers: { ...event, ...(authorization ? { authorization } : {}) },
        body: '',
      });

    it.each([
      ['no Authorization header', undefined],
      ['a wrong bearer token', 'Bearer not-the-token'],
      ['the token under another scheme', 'Basic TOKEN'],
    ])('broker ingress: 401 for a valid event with %s', async (_what, auth) => {
      const res = await post(auth?.replace('TOKEN', broker.ingressToken ?? ''));
      expect(res.status).toBe(401);
      expect(await res.text()).toMatch(/unauthorized/);
    });

    it('broker ingress: its token is in broker.json (mode 0600) and opens it', async () => {
      expect(broker.ingressToken).toMatch(/^[0-9a-f]{32,}$/);
      expect((await stat(join(l.stateDir, 'broker.json'))).mode & 0o777).toBe(0o600);
      expect((await post(`Bearer ${broker.ingressToken}`)).status).toBe(202);
    });

    it.each([
      ['no Authorization header', undefined],
      ['a wrong bearer token', 'Bearer not-the-token'],
    ])('landscape control endpoint: 401 with %s; 200 with its token', async (_what, auth) => {
      const res = await fetch(`${control.url}/clusters`, { headers: auth ? { authorization: auth } : {} });
      expect(res.status).toBe(401);
      const ok = await fetch(`${control.url}/clusters`, {
        headers: { authorization: `Bearer ${control.token}` },
      });
      expect(ok.status).toBe(200);
    });
  });
});

interface ManifestDoc {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

const VISIBILITY = 'networking.knative.dev/visibility';

/** The Knative Services among the documents that are functions and are not cluster-local: `file: ns/name`. */
function publicFunctions(
  docs: readonly { file: string; doc: ManifestDoc }[],
  isFunction: (name: string) => boolean,
): string[] {
  return docs
    .filter(
      ({ doc }) => doc.kind === 'Service' && doc.apiVersion?.startsWith('serving.knative.dev/') === true,
    )
    .filter(({ doc }) => isFunction(doc.metadata?.name ?? ''))
    .filter(({ doc }) => doc.metadata?.labels?.[VISIBILITY] !== 'cluster-local')
    .map(({ file, doc }) => `${file}: Service ${doc.metadata?.namespace ?? 'default'}/${doc.metadata?.name}`);
}

async function knativeDocs(): Promise<{ file: string; doc: ManifestDoc }[]> {
  const dir = join(REPO_ROOT, 'knative');
  const files = (await readdir(dir, { recursive: true })).filter((f) => /\.ya?ml$/.test(f)).sort();
  const out: { file: string; doc: ManifestDoc }[] = [];
  for (const f of files) {
    const text = await readFile(join(dir, f), 'utf8');
    for (const d of parseAllDocuments(text)) {
      const doc = d.toJS() as ManifestDoc | null;
      if (doc) out.push({ file: relative(REPO_ROOT, join(dir, f)), doc });
    }
  }
  return out;
}

const isFunction = (name: string): boolean => existsSync(join(REPO_ROOT, 'functions', name, 'handler.ts'));

describe('Knative Services of the functions', () => {
  it('are all cluster-local (none reachable from outside the cluster)', async () => {
    const docs = await knativeDocs();
    const services = docs.filter(
      ({ doc }) =>
        doc.kind === 'Service' &&
        doc.apiVersion?.startsWith('serving.knative.dev/') &&
        isFunction(doc.metadata?.name ?? ''),
    );
    expect(services.length).toBeGreaterThan(0);
    expect(publicFunctions(docs, isFunction)).toEqual([]);
  });

  it('the check names a function Service without the label, or with another visibility', () => {
    const service = (name: string, labels?: Record<string, string>): ManifestDoc => ({
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Service',
      metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
    });
    const docs = [
      { file: 'a.yaml', doc: service('open') },
      { file: 'b.yaml', doc: service('public', { [VISIBILITY]: 'external' }) },
      { file: 'c.yaml', doc: service('local', { [VISIBILITY]: 'cluster-local' }) },
      { file: 'd.yaml', doc: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'open' } } },
    ];
    expect(publicFunctions(docs, () => true)).toEqual([
      'a.yaml: Service ns/open',
      'b.yaml: Service ns/public',
    ]);
  });
});
