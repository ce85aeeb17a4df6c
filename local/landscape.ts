/**
 * The embedded landscape: the API server's clusters, their kubeconfigs in the state directory,
 * and a loopback control endpoint that `npm run landscape -- stop-cluster <name>` talks to.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type WorkloadSimulation } from './apiserver/index.js';
import { CONTROL_FILE, type ControlFile } from './control.js';

export { CONTROL_FILE, type ControlFile } from './control.js';

export interface LandscapeOptions {
  /** State directory (kubeconfigs, PKI, control file). Default `.local`. */
  stateDir: string;
  /** Clusters besides `main`. */
  clusters: string[];
  /** Port of the main cluster; 0 picks a free one. */
  port: number;
  host: string;
  /** Workload simulation (kwok-like); undefined turns it off. */
  workloads?: WorkloadSimulation;
  /** Keeps every cluster's objects here across restarts (`--data-dir`); undefined: in memory only. */
  dataDir?: string;
  /** Enforce RBAC in every cluster (`--rbac`). */
  rbac?: boolean;
}

export interface Landscape {
  api: ApiServer;
  control: ControlFile;
  stop(): Promise<void>;
}

export function kubeconfigPath(stateDir: string, cluster: string): string {
  return join(stateDir, cluster === 'main' ? 'kubeconfig' : `${cluster}.kubeconfig`);
}

async function writeKubeconfigs(api: ApiServer, stateDir: string): Promise<ControlFile['clusters']> {
  const out: ControlFile['clusters'] = {};
  for (const c of api.clusters()) {
    const path = kubeconfigPath(stateDir, c.name);
    await writeFile(path, c.kubeconfigYaml(), { mode: 0o600 });
    out[c.name] = { url: c.url, kubeconfig: path };
  }
  return out;
}

type Action = (api: ApiServer, name: string) => Promise<void>;

const ACTIONS: Record<string, Action> = {
  'stop-cluster': (api, name) => api.cluster(name).stop(),
  'start-cluster': (api, name) => api.cluster(name).start(),
};

function controlHandler(api: ApiServer, token: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const reply = (code: number, body: unknown): void => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'unauthorized' });
    const m = /^\/clusters\/([^/]+)\/(stop-cluster|start-cluster)$/.exec(req.url ?? '');
    if (req.method === 'GET' && req.url === '/clusters') {
      return reply(
        200,
        api.clusters().map((c) => ({ name: c.name, url: c.url, running: c.running })),
      );
    }
    if (req.method !== 'POST' || !m) return reply(404, { error: `unknown request ${req.method} ${req.url}` });
    const name = decodeURIComponent(m[1]);
    // api.cluster() throws at once for an unknown name: run it inside the promise chain
    Promise.resolve()
      .then(() => ACTIONS[m[2]](api, name))
      .then(() => reply(200, { cluster: name, running: api.cluster(name).running }))
      .catch((e: unknown) => reply(400, { error: (e as Error).message }));
  };
}

export async function startLandscape(opts: LandscapeOptions): Promise<Landscape> {
  await mkdir(opts.stateDir, { recursive: true, mode: 0o700 });
  const api = await startApiServer({
    host: opts.host,
    pkiDir: join(opts.stateDir, 'pki'),
    workloads: opts.workloads,
    dataDir: opts.dataDir,
    clusters: [
      { name: 'main', port: opts.port, rbac: opts.rbac },
      ...opts.clusters.filter((c) => c !== 'main').map((name) => ({ name, rbac: opts.rbac })),
    ],
  });
  const token = randomBytes(24).toString('hex');
  const control: Server = createServer(controlHandler(api, token));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const address = control.address() as { port: number };
  const file: ControlFile = {
    pid: process.pid,
    url: `http://127.0.0.1:${address.port}`,
    token,
    clusters: await writeKubeconfigs(api, opts.stateDir),
  };
  await writeFile(join(opts.stateDir, CONTROL_FILE), JSON.stringify(file, null, 2), { mode: 0o600 });
  return {
    api,
    control: file,
    async stop() {
      await new Promise<void>((resolve) => control.close(() => resolve()));
      control.closeAllConnections();
      await api.stop();
      await rm(join(opts.stateDir, CONTROL_FILE), { force: true });
    },
  };
}
