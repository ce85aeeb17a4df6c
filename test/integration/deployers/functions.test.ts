/**
 * The DeployItem-event functions through their CloudEvent handlers against the embedded API
 * server: the responsibility check (type, Target, target selectors, metadata first, resync, delete
 * events; with the job hand-out switched off by its config, as where a real Landscaper runs), and
 * the same function with its job hand-out on (the embedded landscape's default).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import type { FetchLike } from '../../../shared/events/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import {
  checkHandler,
  createCheckInstance,
  dispatchAll,
} from '../../../functions/responsibility-check/handler.js';
import { loadConfig } from '../../../functions/responsibility-check/config.js';
import { BoundedSet } from '../../../shared/deployer/items.js';
import type { Event } from '../../../shared/events/index.js';
import { triggerListed } from '../../../functions/responsibility-check/jobs.js';
import { localSentJobs } from '../../../functions/responsibility-check/sent.js';
import { crdFiles } from '../../../shared/api/crds.js';

const NS = 'resp';
const log = createLogger({ name: 'test', level: 'error' });
let srv: ApiServer;
let dir: string;
let kubeconfig: string;
let client: KubeClient;
let sent: Array<Record<string, string>>;

const fetchRecorder: FetchLike = (_url, init) => {
  const headers = new Headers(init.headers);
  sent.push({
    type: headers.get('ce-type') ?? '',
    deployertype: headers.get('ce-deployertype') ?? '',
    name: headers.get('ce-name') ?? '',
    uid: headers.get('ce-uid') ?? '',
  });
  return Promise.resolve(new Response(null, { status: 202 }));
};

const CHECK_CONFIG = `handOutJobs: false
deployers:
  - name: mock
    type: landscaper.gardener.cloud/mock
    targetSelectors:
      - annotations: [{key: landscaper.gardener.cloud/environment, operator: "=", values: [dev]}]
  - name: manifest
    type: landscaper.gardener.cloud/kubernetes-manifest
`;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  dir = await mkdtemp(join(tmpdir(), 'deployer-functions-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('main').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()));
  await client.create(GVK.Namespace, { metadata: { name: NS } });
  for (const [name, env] of [
    ['dev', 'dev'],
    ['prod', 'prod'],
  ]) {
    await client.create(GVK.Target, {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'Target',
      metadata: { name, namespace: NS, annotations: { 'landscaper.gardener.cloud/environment': env } },
      spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: 'x' } },
    });
  }
});

afterAll(async () => {
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sent = [];
});

const check = checkHandler(
  createCheckInstance({
    env: () => ({ KUBECONFIG: kubeconfig, K_SINK: 'http://sink.invalid/', CONFIG_FILE: '/config.yaml' }),
    readFile: () => Promise.resolve(CHECK_CONFIG),
    fetch: fetchRecorder,
    log,
  }),
);

async function item(
  name: string,
  type: string,
  target?: string,
  annotations?: Record<string, string>,
): Promise<DeployItem> {
  return client.create<DeployItem>(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
    spec: { type, ...(target ? { target: { name: target } } : {}), config: { a: 1 } },
  });
}

const update = (name: string): Record<string, string> => ({
  type: 'dev.knative.apiserver.ref.update',
  kind: 'DeployItem',
  namespace: NS,
  name,
});

it.each([
  ['a mock item on a dev Target', 'landscaper.gardener.cloud/mock', 'dev', ['mock']],
  ['a mock item on a prod Target (selector does not match)', 'landscaper.gardener.cloud/mock', 'prod', []],
  [
    'a mock item on a missing Target (responsible: it then fails NoTargetFound)',
    'landscaper.gardener.cloud/mock',
    'absent',
    ['mock'],
  ],
  ['a manifest item (no selectors)', 'landscaper.gardener.cloud/kubernetes-manifest', 'prod', ['manifest']],
  ['a helm item (no deployer of that type)', 'landscaper.gardener.cloud/helm', 'dev', []],
])('%s', async (_what, type, target, deployers) => {
  const name = `i-${sent.length}-${type.split('/')[1]}-${target}`;
  const created = await item(name, type, target, {
    'landscaper.gardener.cloud/deployer-type': type,
    'landscaper.gardener.cloud/deployer-target-name': target,
  });
  await check(update(name));
  expect(sent).toEqual(
    deployers.map((d) => ({
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: d,
      name,
      uid: created.metadata?.uid,
    })),
  );
});

it('reads the full item only when the annotations are missing, and still decides right', async () => {
  await item('no-annotations', 'landscaper.gardener.cloud/mock', 'dev');
  await check(update('no-annotations'));
  expect(sent.map((e) => `${e.deployertype}/${e.name}`)).toEqual(['mock/no-annotations']);
});

it('checks every item on a resync (the deployers-resync ping), and nothing on a delete event', async () => {
  await check({
    type: 'dev.knative.sources.ping',
    source: '/apis/v1/namespaces/landscape-system/pingsources/deployers-resync',
    data: { job: 'resync', family: 'deployers' },
  });
  const names = sent.map((e) => e.name);
  expect(names).toContain('no-annotations');
  expect(names.some((n) => n.includes('helm'))).toBe(false);
  sent = [];
  await check({ ...update('no-annotations'), type: 'dev.knative.apiserver.ref.delete' });
  expect(sent).toEqual([]);
});

/** The same function with the job hand-out on (its default: no handOutJobs key). */
const withJobs = (): ((ce: unknown) => Promise<void>) =>
  checkHandler(
    createCheckInstance({
      env: () => ({ KUBECONFIG: kubeconfig, K_SINK: 'http://sink.invalid/', CONFIG_FILE: '/config.yaml' }),
      readFile: () => Promise.resolve(CHECK_CONFIG.replace('handOutJobs: false\n', '')),
      fetch: fetchRecorder,
      log,
    }),
  );

it('hands out no job when the job hand-out is switched off; with it on, the job first, then the check', async () => {
  await item('untouched', 'landscaper.gardener.cloud/kubernetes-manifest');
  await check(update('untouched'));
  const before = await client.get<DeployItem>(GVK.DeployItem, NS, 'untouched');
  expect(before.status?.jobID).toBeUndefined();
  // a Reference-mode event: the metadata cannot show the job, the responsible deployer decides
  expect(sent.map((e) => `${e.deployertype}/${e.name}`)).toEqual(['manifest/untouched']);
  sent = [];

  const on = withJobs();
  await on(update('untouched'));
  const after = await client.get<DeployItem>(GVK.DeployItem, NS, 'untouched');
  expect(after.status?.jobID).toBeTruthy();
  expect(after.metadata?.annotations?.['landscaper.gardener.cloud/deployer-type']).toBe(
    'landscaper.gardener.cloud/kubernetes-manifest',
  );
  // the event that got a write is checked no further: the write's own event follows
  expect(sent).toEqual([]);
  await on(update('untouched'));
  expect(sent).toEqual([
    {
      type: 'dev.landscape.deployitem.reconcile',
      deployertype: 'manifest',
      name: 'untouched',
      uid: after.metadata?.uid,
    },
  ]);
  expect((await client.get<DeployItem>(GVK.DeployItem, NS, 'untouched')).status?.jobID).toBe(
    after.status?.jobID,
  );
});

const RESYNC_PING = {
  type: 'dev.knative.sources.ping',
  source: '/apis/v1/namespaces/landscape-system/pingsources/deployers-resync',
};

it('a resync (the deployers-resync ping) hands out one job to every item that needs one, then checks them', async () => {
  await item('resync-a', 'landscaper.gardener.cloud/mock');
  await item('resync-b', 'landscaper.gardener.cloud/kubernetes-manifest');
  const on = withJobs();
  await on(RESYNC_PING);
  const jobs = async (): Promise<(string | undefined)[]> =>
    Promise.all(
      ['resync-a', 'resync-b'].map(
        async (n) => (await client.get<DeployItem>(GVK.DeployItem, NS, n)).status?.jobID,
      ),
    );
  const first = await jobs();
  expect(first.every((j) => typeof j === 'string' && j !== '')).toBe(true);
  expect(sent.map((e) => e.name)).not.toContain('resync-b'); // written: its own event follows
  sent = [];
  await on(RESYNC_PING); // the job is not finished: nothing new is handed out, the items are checked
  expect(await jobs()).toEqual(first);
  expect(sent.filter((e) => e.name.startsWith('resync-')).map((e) => `${e.deployertype}/${e.name}`)).toEqual(
    expect.arrayContaining(['manifest/resync-b']),
  );
});

it('a listed item that changed since the list is decided again from a fresh read', async () => {
  const listed = await item('resync-stale', 'landscaper.gardener.cloud/mock');
  await client.mergePatch(
    GVK.DeployItem,
    { namespace: NS, name: 'resync-stale' },
    { metadata: { labels: { moved: 'yes' } } },
  );
  const deps = { client, now: () => new Date(), newId: () => 'job-1', log };
  const config = { ensureDefaultContext: false };
  await triggerListed(deps, config, listed); // 409 on the stale resourceVersion, then a fresh read
  const after = await client.get<DeployItem>(GVK.DeployItem, NS, 'resync-stale');
  expect(after.status?.jobID).toBe('job-1');
  expect(after.metadata?.labels).toEqual({ moved: 'yes' });
});

it("a resync: one item's failing job write stops no other item's job or check; the pass rejects at its end", async () => {
  const annotated = {
    'landscaper.gardener.cloud/deployer-type': 'landscaper.gardener.cloud/kubernetes-manifest',
    'landscaper.gardener.cloud/deployer-target-name': 'prod',
  };
  await item('fails-a', 'landscaper.gardener.cloud/kubernetes-manifest', 'prod', annotated);
  await item('works-b', 'landscaper.gardener.cloud/kubernetes-manifest', 'prod', annotated);
  const refused = new Error('injected: the status write of fails-a is refused');
  // the real client, but the job write of one item fails (as a refused Context or a 5xx would)
  const failing = new Proxy(client, {
    get(target, prop, receiver): unknown {
      if (prop === 'replaceStatus')
        return (gvk: unknown, obj: DeployItem): Promise<unknown> =>
          obj.metadata?.name === 'fails-a'
            ? Promise.reject(refused)
            : (target.replaceStatus as (g: unknown, o: DeployItem) => Promise<unknown>).call(
                target,
                gvk,
                obj,
              );
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const config = loadConfig('ensureDefaultContext: false\n', { K_SINK: 'http://sink.invalid/' });
  if (!config.ok) throw new Error(config.problems.join('; '));
  const events: Event[] = [];
  const deps = {
    client: failing,
    send: (e: Event): Promise<void> => Promise.resolve(void events.push(e)),
    newId: () => `job-${events.length}-${Math.random()}`,
    now: () => new Date(),
    log,
    sentJobs: localSentJobs(),
    contexts: new Set<string>(),
    superseded: new BoundedSet(),
  };
  await expect(dispatchAll(deps, config.config)).rejects.toBe(refused);
  expect((await client.get<DeployItem>(GVK.DeployItem, NS, 'works-b')).status?.jobID).toBeTruthy();
  expect((await client.get<DeployItem>(GVK.DeployItem, NS, 'fails-a')).status?.jobID).toBeUndefined();
  // checked as listed (a metadata decision: the responsible deployer gets it), the other not yet
  // (its job write's own event follows)
  const names = events.map((e) => `${String(e['deployertype'])}/${String(e['name'])}`);
  expect(names).toContain('manifest/fails-a');
  expect(names).not.toContain('manifest/works-b');
});
