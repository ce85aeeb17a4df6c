/**
 * The deployer functions in this process, as test/integration/deployers/mock.test.ts drives them:
 * the embedded API server (main cluster, traffic counted) and a private redis-server, a kubeconfig
 * file, the env a replica gets (KUBECONFIG, REDIS_URL, POD_NAME, POD_NAMESPACE) and its Pod for
 * lock liveness; responsibility-check's two steps, the job hand-out and the check (its events kept,
 * not sent), and the mock deployer as their handlers call them. Logs are formatted at info, as in a function, and
 * dropped.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { TrafficCounter, TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { startRedis, type TestRedis } from '../../local/redis.js';
import { redisOnSignal } from '../common.js';
import { GVK } from '../../shared/api/gvk.js';
import type { Event } from '../../shared/events/index.js';
import { createLogger, type Logger } from '../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../shared/kube/index.js';
import {
  createDeployerInstance,
  runDeployerEvent,
  type DeployerConfig,
  type DeployerInstanceDeps,
} from '../../shared/deployer/host/function.js';
import type { RunOutcome } from '../../shared/deployer/host/run.js';
import type { FunctionInstance } from '../../shared/function/index.js';
import { createMockDeployer } from '../../functions/deployer-mock/plugin.js';
import { triggerJob, type TriggerOutcome } from '../../functions/responsibility-check/jobs.js';
import { checkItem } from '../../functions/responsibility-check/check.js';
import {
  loadConfig as loadCheckConfig,
  type CheckConfig,
} from '../../functions/responsibility-check/config.js';
import { crdFiles } from '../../shared/api/crds.js';

const FN = 'deployer-mock';
const SYSTEM_NS = 'landscape-system';
const plugin = createMockDeployer();

export interface Ref {
  namespace: string;
  name: string;
}

export interface Harness {
  server: ApiServer;
  redis: TestRedis;
  traffic: TrafficCounter;
  /** The bench's own client (creates, lists). */
  client: KubeClient;
  trigger(ref: Ref): Promise<TriggerOutcome>;
  /** The responsibility check of one item; returns the reconcile events it would send. */
  check(ref: Ref): Promise<Event[]>;
  deploy(event: Event): Promise<RunOutcome | undefined>;
  close(): Promise<void>;
}

function droppedLog(name: string): Logger {
  return createLogger({ name, level: 'info', destination: { write: (): void => undefined } });
}

function checkConfig(): CheckConfig {
  const r = loadCheckConfig(undefined, { K_SINK: 'http://127.0.0.1:9/' });
  if (!r.ok) throw new Error(`responsibility-check config: ${r.problems.join('; ')}`);
  return r.config;
}

async function bootstrap(client: KubeClient, namespaces: string[]): Promise<void> {
  for (const name of [SYSTEM_NS, ...namespaces]) await client.create(GVK.Namespace, { metadata: { name } });
  await client.create(GVK.Pod, {
    metadata: { name: 'replica-a', namespace: SYSTEM_NS },
    spec: { containers: [{ name: 'fn', image: 'fn' }] },
  });
}

interface Parts {
  server: ApiServer;
  redis: TestRedis;
  dir: string;
  instance: FunctionInstance<DeployerConfig, DeployerInstanceDeps>;
}

function harnessOf(parts: Parts, client: KubeClient): Harness {
  const { server, redis, dir, instance } = parts;
  const stopOnSignal = redisOnSignal(redis);
  const yaml = server.cluster().kubeconfigYaml();
  // each function's own client as in its replica (shared/function clusterClient): fieldManager =
  // its name, connections kept alive, transient answers retried
  const fnClient = (name: string): KubeClient =>
    createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: name, keepAlive: true, retryTransient: true });
  // one function hands out the job and checks (functions/responsibility-check): one client, one log
  const checkClient = fnClient('responsibility-check');
  const config = checkConfig();
  const checkLog = droppedLog('responsibility-check');
  return {
    server,
    redis,
    traffic: server.cluster().traffic!,
    client,
    trigger: (ref) =>
      triggerJob(
        { client: checkClient, now: () => new Date(), newId: randomUUID, log: checkLog },
        { ensureDefaultContext: true },
        ref,
      ),
    async check(ref) {
      const sent: Event[] = [];
      const deps = {
        client: checkClient,
        send: (e: Event): Promise<void> => Promise.resolve(void sent.push(e)),
        newId: randomUUID,
        now: () => new Date(),
        log: checkLog,
      };
      await checkItem(deps, config, ref);
      return sent;
    },
    deploy: (event) => runDeployerEvent(FN, plugin, instance, event),
    async close() {
      stopOnSignal();
      await instance.close();
      await redis.stop();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts everything; `namespaces` are created for the items. */
export async function startHarness(namespaces: string[]): Promise<Harness> {
  const server = await startApiServer({
    crdFiles: crdFiles(),
    clusters: [{ name: 'main', countTraffic: true }],
  });
  let redis: TestRedis | undefined;
  try {
    redis = await startRedis();
    const dir = await mkdtemp(join(tmpdir(), 'bench-deployers-'));
    const yaml = server.cluster().kubeconfigYaml();
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, yaml);
    // the items' creator keeps its connections alive, as client-go does
    const client = createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: 'bench', keepAlive: true });
    await bootstrap(client, namespaces);
    const env = {
      KUBECONFIG: kubeconfig,
      REDIS_URL: redis.url,
      POD_NAME: 'replica-a',
      POD_NAMESPACE: SYSTEM_NS,
    };
    const instance = createDeployerInstance(FN, plugin, { env: () => env, log: droppedLog(FN) });
    return harnessOf({ server, redis, dir, instance }, client);
  } catch (e) {
    await redis?.stop();
    await server.stop();
    throw e;
  }
}

export type { TrafficSnapshot };
