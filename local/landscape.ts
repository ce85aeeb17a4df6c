/**
 * The embedded landscape: the API server's clusters, their kubeconfigs in the state directory,
 * and a loopback control endpoint that `npm run landscape -- stop-cluster <name>` talks to.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startApiServer,
  type ApiServer,
  type ApiServerOptions,
  type WorkloadSimulation,
} from '@landscape/kube-apiserver';
import { CONTROL_FILE, type ControlFile } from './control.js';
import { writeFileAtomic } from '../shared/files/atomic.js';
import { kubeConfigFromFile } from '../shared/kube/index.js';
import { createLogger } from '../shared/log/index.js';
import { findBinary, redisNotInstalled } from './redis.js';
import { startRuntime, type Runtime, type RuntimeOptions } from './knative/runtime.js';
import {
  DEFAULT_SEED_DELAY_MS,
  DEFAULT_SHOOT_DELAY_MS,
  startFixtureController,
  type FixtureController,
  type FixtureOptions,
} from './gardenlet/index.js';
import { crdFiles } from '../shared/api/crds.js';

/** What `npm start` gives the serverless runtime (the rest comes from the landscape). */
export type RuntimeSettings = Omit<RuntimeOptions, 'stateDir' | 'kubeconfigPath' | 'kubeConfig' | 'log'>;

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
  /** The functions, sources and broker; undefined: the API server alone (`--no-functions`). */
  runtime?: RuntimeSettings;
  /** Run against the cluster of this kubeconfig instead of the embedded API server (`--kubeconfig`). */
  kubeconfig?: string;
  /** The fixture controller playing gardenlet (local/gardenlet); undefined: off (`--no-fixtures`). */
  fixtures?: FixtureOptions;
  /** Keep an audit log of every cluster's writes (`api.audit(name)`); off by default. */
  audit?: ApiServerOptions['audit'];
  /** Append an audit.k8s.io/v1 Event per API request to this file (`--audit-log`); off by default. */
  auditLogPath?: string;
  /** Hears what the start is doing, a line per step (`npm start` prints them); default silent. */
  progress?: (line: string) => void;
}

export interface Landscape {
  /** The embedded API server; undefined with `--kubeconfig`. */
  api?: ApiServer;
  runtime?: Runtime;
  /** The delays of the running fixture controller; undefined when it does not run. */
  fixtures?: FixtureDelays;
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
    await writeFileAtomic(path, c.kubeconfigYaml(), { mode: 0o600 });
    out[c.name] = { url: c.url, kubeconfig: path };
  }
  return out;
}

type Action = (api: ApiServer, name: string) => Promise<void>;

const ACTIONS: Record<string, Action> = {
  'stop-cluster': (api, name) => api.cluster(name).stop(),
  'start-cluster': (api, name) => api.cluster(name).start(),
};

type Reply = (code: number, body: unknown) => void;

/** GET /clusters and GET /functions; false for anything else. */
function serveQuery(
  url: string | undefined,
  api: ApiServer | undefined,
  runtime: Runtime | undefined,
  reply: Reply,
): boolean {
  if (url === '/clusters') {
    reply(
      200,
      (api?.clusters() ?? []).map((c) => ({ name: c.name, url: c.url, running: c.running })),
    );
    return true;
  }
  if (url !== '/functions') return false;
  if (!runtime) reply(200, []);
  else
    runtime.status().then(
      (rows) => reply(200, rows),
      (e: unknown) => reply(500, { error: String(e) }),
    );
  return true;
}

function controlHandler(
  api: ApiServer | undefined,
  runtime: () => Runtime | undefined,
  token: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const reply: Reply = (code, body) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'unauthorized' });
    if (req.method === 'GET' && serveQuery(req.url, api, runtime(), reply)) return;
    const m = /^\/clusters\/([^/]+)\/(stop-cluster|start-cluster)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m || !api)
      return reply(404, { error: `unknown request ${req.method} ${req.url}` });
    const name = decodeURIComponent(m[1]);
    // api.cluster() throws at once for an unknown name: run it inside the promise chain
    Promise.resolve()
      .then(() => ACTIONS[m[2]](api, name))
      .then(() => reply(200, { cluster: name, running: api.cluster(name).running }))
      .catch((e: unknown) => reply(400, { error: (e as Error).message }));
  };
}

async function startApi(opts: LandscapeOptions): Promise<ApiServer> {
  opts.progress?.(`clusters: starting ${['main', ...opts.clusters].join(', ')}`);
  return startApiServer({
    crdFiles: crdFiles(),
    host: opts.host,
    pkiDir: join(opts.stateDir, 'pki'),
    workloads: opts.workloads,
    dataDir: opts.dataDir,
    audit: opts.audit,
    ...(opts.auditLogPath ? { auditLogPath: opts.auditLogPath } : {}),
    clusters: [
      { name: 'main', port: opts.port, rbac: opts.rbac },
      ...opts.clusters.filter((c) => c !== 'main').map((name) => ({ name, rbac: opts.rbac })),
    ],
  });
}

/** The kubeconfig of each cluster: written for the embedded ones, the given one with `--kubeconfig`. */
async function clusterFiles(
  api: ApiServer | undefined,
  opts: LandscapeOptions,
): Promise<ControlFile['clusters']> {
  const clusters = api
    ? await writeKubeconfigs(api, opts.stateDir)
    : {
        main: {
          url: kubeConfigFromFile(opts.kubeconfig!).getCurrentCluster()?.server ?? '',
          kubeconfig: opts.kubeconfig!,
        },
      };
  opts.progress?.(
    `clusters: ${Object.entries(clusters)
      .map(([name, c]) => `${name} ${c.url}`)
      .join(', ')}`,
  );
  return clusters;
}

type FixtureDelays = Required<Pick<FixtureOptions, 'shootDelayMs' | 'seedDelayMs'>>;

function fixtureDelays(o: FixtureOptions): FixtureDelays {
  return {
    shootDelayMs: o.shootDelayMs ?? DEFAULT_SHOOT_DELAY_MS,
    seedDelayMs: o.seedDelayMs ?? DEFAULT_SEED_DELAY_MS,
  };
}

/**
 * The fixture controller over the main cluster's kubeconfig. Not waited for: against a cluster
 * that serves no Shoots it keeps retrying its lists (and says so) instead of holding up the start.
 */
function startFixtures(o: FixtureOptions, kubeconfigPath: string): FixtureController {
  return startFixtureController({
    ...fixtureDelays(o),
    ...(o.seedResources ? { seedResources: o.seedResources } : {}),
    kubeConfig: kubeConfigFromFile(kubeconfigPath),
    logger: createLogger({ name: 'landscape.fixtures' }),
  });
}

/** Before anything starts: a machine without Redis (and no REDIS_URL) is told at once. */
function checkRedis(runtime: RuntimeSettings | undefined): void {
  if (runtime && !runtime.redisUrl && findBinary('redis-server') === undefined)
    throw redisNotInstalled('redis-server');
}

export async function startLandscape(opts: LandscapeOptions): Promise<Landscape> {
  checkRedis(opts.runtime);
  await mkdir(opts.stateDir, { recursive: true, mode: 0o700 });
  const api = opts.kubeconfig === undefined ? await startApi(opts) : undefined;
  let runtime: Runtime | undefined;
  let fixtures: FixtureController | undefined;
  const token = randomBytes(24).toString('hex');
  const control: Server = createServer(controlHandler(api, () => runtime, token));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const address = control.address() as { port: number };
  const clusters = await clusterFiles(api, opts);
  const file: ControlFile = { pid: process.pid, url: `http://127.0.0.1:${address.port}`, token, clusters };
  const stop = async (): Promise<void> => {
    await fixtures?.stop();
    await runtime?.stop();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    control.closeAllConnections();
    await api?.stop();
    await rm(join(opts.stateDir, CONTROL_FILE), { force: true });
  };
  try {
    if (opts.fixtures) fixtures = startFixtures(opts.fixtures, clusters.main.kubeconfig);
    if (opts.runtime) {
      const kubeconfigPath = clusters.main.kubeconfig;
      runtime = await startRuntime({
        ...(opts.progress ? { progress: opts.progress } : {}),
        ...opts.runtime,
        stateDir: opts.stateDir,
        kubeconfigPath,
        kubeConfig: kubeConfigFromFile(kubeconfigPath),
        log: createLogger({ name: 'landscape' }),
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  // atomically: `npm run landscape`, the e2e tests and tools read it as soon as it exists
  await writeFileAtomic(join(opts.stateDir, CONTROL_FILE), JSON.stringify(file, null, 2), { mode: 0o600 });
  return { api, runtime, fixtures: opts.fixtures && fixtureDelays(opts.fixtures), control: file, stop };
}
