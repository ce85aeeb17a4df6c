/**
 * The DeployItem-event functions on Resource-mode events (the object carried as the event's data)
 * against the embedded API server, its requests counted: the job hand-out decides from the carried
 * object without a read, one optimistic write per event, and a stale object costs a Conflict and a
 * read; the responsibility check reads nothing, sends nothing for an item without a job, sends an
 * open job once and hands the object on as the reconcile event's data; with both in one function
 * (the default), an event that got a write sends nothing (its write's own event does).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { trafficDelta, type TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import type { FetchLike } from '../../../shared/events/index.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { checkHandler, createCheckInstance } from '../../../functions/responsibility-check/handler.js';
import { crdFiles } from '../../../shared/api/crds.js';
import { decodeHttpEvent, takeReply, withReplySlot } from '../../../shared/events/index.js';

const NS = 'resource-mode';
const log = createLogger({ name: 'test', level: 'error' });
let srv: ApiServer;
let dir: string;
let client: KubeClient;
let trigger: (ce: unknown) => Promise<void>;
let check: (ce: unknown) => Promise<void>;
let sent: Array<{ deployertype: string; name: string; data: unknown }>;

const fetchRecorder: FetchLike = (_url, init) => {
  const headers = new Headers(init.headers);
  sent.push({
    deployertype: headers.get('ce-deployertype') ?? '',
    name: headers.get('ce-name') ?? '',
    data: typeof init.body === 'string' && init.body !== '' ? JSON.parse(init.body) : undefined,
  });
  return Promise.resolve(new Response(null, { status: 202 }));
};

/** responsibility-check as deployed: the job hand-out on (its default). */
const withJobs = (kubeconfig: string): ((ce: unknown) => Promise<void>) =>
  checkHandler(
    createCheckInstance({
      env: () => ({ KUBECONFIG: kubeconfig, K_SINK: 'http://sink.invalid/' }),
      fetch: fetchRecorder,
      log,
    }),
  );

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: [{ name: 'main', countTraffic: true }] });
  dir = await mkdtemp(join(tmpdir(), 'resource-mode-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('main').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()));
  await client.create(GVK.Namespace, { metadata: { name: NS } });
  trigger = withJobs(kubeconfig);
  check = checkHandler(
    createCheckInstance({
      env: () => ({ KUBECONFIG: kubeconfig, K_SINK: 'http://sink.invalid/', HAND_OUT_JOBS: 'false' }),
      fetch: fetchRecorder,
      log,
    }),
  );
});

afterAll(async () => {
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sent = [];
});

/** The event Knative's adapter sends in Resource mode for this version of the item. */
const event = (object: DeployItem): Record<string, unknown> => ({
  type: 'dev.knative.apiserver.resource.update',
  kind: 'DeployItem',
  namespace: NS,
  name: object.metadata?.name,
  data: object,
});

/** responsibility-check without the job hand-out, with `yaml` as its config file. */
async function checkWithConfig(file: string, yaml: string): Promise<(ce: unknown) => Promise<void>> {
  const path = join(dir, file);
  await writeFile(path, yaml);
  return checkHandler(
    createCheckInstance({
      env: () => ({
        KUBECONFIG: join(dir, 'kubeconfig'),
        K_SINK: 'http://sink.invalid/',
        HAND_OUT_JOBS: 'false',
        CONFIG_FILE: path,
      }),
      fetch: fetchRecorder,
      log,
    }),
  );
}

const get = (name: string): Promise<DeployItem> => client.get<DeployItem>(GVK.DeployItem, NS, name);

/** The requests `fn` made, by verb and resource (the test's own reads left out by the caller). */
async function requests(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const traffic = srv.cluster('main').traffic!;
  const before = traffic.snapshot();
  await fn();
  const delta: TrafficSnapshot = trafficDelta(traffic.snapshot(), before);
  return Object.fromEntries(Object.entries(delta).map(([k, c]) => [k, c.requests]));
}

function mock(name: string): Promise<DeployItem> {
  return client.create<DeployItem>(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name, namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/mock', config: { a: 1 } },
  });
}

it('the job hand-out: one write per event, no read; a superseded version costs nothing', async () => {
  const created = await mock('one');
  expect(await requests(() => trigger(event(created)))).toEqual({ 'patch deployitems': 1 });
  const annotated = await get('one');
  expect(annotated.metadata?.annotations?.['landscaper.gardener.cloud/deployer-type']).toBe(
    'landscaper.gardener.cloud/mock',
  );
  expect(annotated.status?.jobID).toBeUndefined();
  expect(await requests(() => trigger(event(annotated)))).toEqual({
    'create contexts': 1,
    'update deployitems/status': 1,
  });
  const job = await get('one');
  expect(job.status?.jobID).toBeTruthy();
  // the created version again (a redelivery): this instance superseded it
  expect(await requests(() => trigger(event(created)))).toEqual({});
  expect(await requests(() => trigger(event(job)))).toEqual({});
  expect((await get('one')).status?.jobID).toBe(job.status?.jobID);
});

it('the job hand-out: a stale object on another replica is a Conflict, then a read, and nothing is overwritten', async () => {
  const created = await mock('two');
  await trigger(event(created));
  await trigger(event(await get('two')));
  const job = (await get('two')).status?.jobID;
  const other = withJobs(join(dir, 'kubeconfig'));
  const r = await requests(() => other(event(created)));
  expect(r).toEqual({ 'patch deployitems': 1, 'get deployitems': 1 });
  expect((await get('two')).status?.jobID).toBe(job);
});

it('the responsibility check: no read; nothing for no job, an open job once with the object (again after a spec edit), nothing for a finished one', async () => {
  const created = await mock('three');
  expect(await requests(() => check(event(created)))).toEqual({});
  expect(sent).toEqual([]);
  await trigger(event(created));
  await trigger(event(await get('three')));
  const open = await get('three');
  expect(await requests(() => check(event(open)))).toEqual({});
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'three']]);
  expect((sent[0].data as DeployItem).metadata?.resourceVersion).toBe(open.metadata?.resourceVersion);
  sent = [];
  const touched = await client.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'three' },
    {
      metadata: { labels: { x: 'y' } },
    },
  );
  await check(event(touched));
  expect(sent).toEqual([]);
  const edited = await client.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'three' },
    {
      spec: { config: { a: 2 } },
    },
  );
  await check(event(edited));
  expect(sent.map((e) => e.deployertype)).toEqual(['mock']);
  sent = [];
  const finished = await client.patchStatus<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'three' },
    {
      status: { jobIDFinished: open.status?.jobID, phase: 'Succeeded' },
    },
  );
  // a finished job: no ShouldReconcile hook of the mock deployer has anything to decide
  expect(await requests(() => check(event(finished)))).toEqual({});
  expect(sent).toEqual([]);
});

it('the responsibility check: a finished job goes to a deployer only for a continuous reconcile, or when configured `finishedJobs: always`', async () => {
  const created = await client.create<DeployItem>(GVK.DeployItem, {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name: 'continuous', namespace: NS },
    spec: { type: 'landscaper.gardener.cloud/mock', config: { continuousReconcile: { every: '1h' } } },
  });
  await trigger(event(created));
  await trigger(event(await get('continuous')));
  const open = await get('continuous');
  const finished = await client.patchStatus<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'continuous' },
    { status: { jobIDFinished: open.status?.jobID, phase: 'Succeeded' } },
  );
  sent = [];
  await check(event(finished));
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'continuous']]);
  sent = [];
  // switched off by its annotation: nothing to decide
  const off = await client.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'continuous' },
    {
      metadata: {
        annotations: { 'continuousreconcile.extensions.landscaper.gardener.cloud/active': 'false' },
      },
    },
  );
  await check(event(off));
  expect(sent).toEqual([]);
  // a deployer with ShouldReconcile hooks of its own gets every finished job
  const always = await checkWithConfig(
    'always.yaml',
    'deployers:\n  - {name: mock, type: landscaper.gardener.cloud/mock, finishedJobs: always}\n',
  );
  await always(event(off));
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'continuous']]);
});

it("one function: the job first (an event that got a write sends nothing), the open job from the written version's event, once", async () => {
  const created = await mock('four');
  expect(await requests(() => trigger(event(created)))).toEqual({ 'patch deployitems': 1 });
  const annotated = await get('four');
  const jobWrite = await requests(() => trigger(event(annotated)));
  delete jobWrite['create contexts']; // the namespace's default Context, once per instance
  expect(jobWrite).toEqual({ 'update deployitems/status': 1 });
  expect(sent).toEqual([]);
  const job = await get('four');
  expect(await requests(() => trigger(event(job)))).toEqual({});
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'four']]);
  expect((sent[0].data as DeployItem).metadata?.resourceVersion).toBe(job.metadata?.resourceVersion);
  sent = [];
  // a redelivery of the job's event, and of a version this instance wrote over: nothing
  await trigger(event(job));
  await trigger(event(annotated));
  expect(sent).toEqual([]);
  expect((await get('four')).status?.jobID).toBe(job.status?.jobID);
});

it('one function: a redelivered version its job write superseded sends nothing (the new job is decided from its own event)', async () => {
  const created = await mock('five');
  await trigger(event(created));
  await trigger(event(await get('five')));
  const open = await get('five');
  await client.patchStatus<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'five' },
    { status: { jobIDFinished: open.status?.jobID, phase: 'Succeeded' } },
  );
  const edited = await client.mergePatch<DeployItem>(
    GVK.DeployItem,
    { namespace: NS, name: 'five' },
    { spec: { config: { a: 2 } } },
  );
  sent = [];
  expect(await requests(() => trigger(event(edited)))).toEqual({ 'update deployitems/status': 1 });
  const next = (await get('five')).status?.jobID;
  expect(next).toBeTruthy();
  expect(next).not.toBe(open.status?.jobID);
  // the edited version again (a redelivery): it shows the finished job, which would go to the
  // deployer's ShouldReconcile hooks, but this instance wrote over it
  await trigger(event(edited));
  expect(sent).toEqual([]);
});

it('one function: a Reference-mode event of an item that is gone costs one read', async () => {
  const ref = {
    type: 'dev.knative.apiserver.ref.update',
    kind: 'DeployItem',
    namespace: NS,
    name: 'never-was',
  };
  expect(await requests(() => trigger(ref))).toEqual({ 'get deployitems': 1 });
  expect(sent).toEqual([]);
});

it('the responsibility check: an open job once per job, again only for a redelivery of the event that sent it; as the reply where the delivery takes one', async () => {
  const withId = (object: DeployItem, id: string): Record<string, unknown> => ({ ...event(object), id });
  const created = await mock('six');
  await trigger(event(created));
  await trigger(event(await get('six')));
  const open = await get('six');
  await check(withId(open, 'ev-a'));
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'six']]);
  sent = [];
  await check(withId(open, 'ev-b'));
  expect(sent).toEqual([]);
  await check(withId(open, 'ev-a'));
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'six']]);
  sent = [];

  const other = await mock('seven');
  await trigger(event(other));
  await trigger(event(await get('seven')));
  const job = await get('seven');
  const headers: Record<string, string> = {};
  const answer = { setHeader: (k: string, v: string): unknown => (headers[k] = v) };
  const body = await withReplySlot('reply', answer, async () => {
    await check(withId(job, 'ev-c'));
    return takeReply();
  });
  expect(sent).toEqual([]);
  const reply = decodeHttpEvent({ headers, body: Buffer.from(body ?? '') });
  expect(reply).toMatchObject({
    type: 'dev.landscape.deployitem.reconcile',
    deployertype: 'mock',
    name: 'seven',
  });
  expect((reply.data as DeployItem).metadata?.resourceVersion).toBe(job.metadata?.resourceVersion);

  // `reply: false`: POSTed, whatever the delivery takes
  const posting = await checkWithConfig('no-reply.yaml', 'reply: false\n');
  const none = await withReplySlot('reply', answer, async () => {
    await posting(withId(job, 'ev-d'));
    return takeReply();
  });
  expect(none).toBeUndefined();
  expect(sent.map((e) => [e.deployertype, e.name])).toEqual([['mock', 'seven']]);
});
