/**
 * The Cloud Functions event service (main.ts --function-url): ApiServerSources, Brokers and
 * Triggers from one folder; events routed by the Triggers to function URLs from a template, a
 * reply published back, what functions emit to the ingress routed too, failures dead-lettered.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '@landscape/kube-apiserver';
import type { ApiServer } from '@landscape/kube-apiserver';
import { GVK } from '../../../shared/api/gvk.js';
import { createKubeClient, kubeConfigFromYaml } from '../../../shared/kube/index.js';
import { startEventService } from '../../../triggers/plane/index.js';
import { storesIn, type DeadLetter } from '../../../triggers/broker/dlq.js';
import { captureLogger, waitFor } from './support.js';
import { crdFiles } from '../../../shared/api/crds.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

interface Call {
  fn: string;
  type: string;
  name?: string;
  auth?: string;
}

/** Stands in for the deployed functions: /fn/<name>; `echo` replies, `broken` answers 500. */
async function startFunctions(): Promise<{ url: string; calls: Call[]; close(): Promise<void> }> {
  const calls: Call[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const fn = (req.url ?? '').split('/')[2] ?? '';
      const h = (k: string): string | undefined => req.headers[k] as string | undefined;
      calls.push({ fn, type: h('ce-type') ?? '', name: h('ce-name'), auth: h('authorization') });
      if (fn === 'broken') return void res.writeHead(500).end();
      if (fn !== 'echo') return void res.writeHead(202).end();
      res
        .writeHead(200, {
          'ce-specversion': '1.0',
          'ce-id': `reply-${h('ce-id')}`,
          'ce-source': 'test/echo',
          'ce-type': 'test.reply',
          'content-type': 'application/json',
        })
        .end(JSON.stringify({ of: h('ce-name') }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const MANIFESTS = `apiVersion: eventing.knative.dev/v1
kind: Broker
metadata: {name: default, namespace: svc}
---
apiVersion: sources.knative.dev/v1
kind: ApiServerSource
metadata: {name: cms, namespace: svc}
spec:
  mode: Reference
  resources: [{apiVersion: v1, kind: ConfigMap}]
  sink: {ref: {apiVersion: eventing.knative.dev/v1, kind: Broker, name: default}}
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: {name: adds, namespace: svc}
spec:
  broker: default
  filter: {attributes: {type: dev.knative.apiserver.ref.add}}
  subscriber: {ref: {apiVersion: serving.knative.dev/v1, kind: Service, name: echo}}
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: {name: replies-and-emits, namespace: svc}
spec:
  broker: default
  filters: [{any: [{exact: {type: test.reply}}, {exact: {type: test.emitted}}]}]
  subscriber: {ref: {apiVersion: serving.knative.dev/v1, kind: Service, name: recorder}}
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: {name: fails, namespace: svc}
spec:
  broker: default
  filter: {attributes: {type: test.fail}}
  subscriber: {ref: {apiVersion: serving.knative.dev/v1, kind: Service, name: broken}}
  delivery: {retry: 1, backoffPolicy: linear, backoffDelay: PT0.01S}
`;

let srv: ApiServer;
let dir: string;
let functions: Awaited<ReturnType<typeof startFunctions>>;

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['main'] });
  dir = await mkdtemp(path.join(os.tmpdir(), 'routed-'));
  await writeFile(path.join(dir, 'events.yaml'), MANIFESTS);
  await writeFile(path.join(dir, 'kubeconfig'), srv.cluster('main').kubeconfigYaml());
  functions = await startFunctions();
  await createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml())).create(GVK.Namespace, {
    metadata: { name: 'svc' },
  });
});

afterAll(async () => {
  await functions?.close();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function post(url: string, type: string, id: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-source': 'test',
      'ce-type': type,
      'content-type': 'application/json',
    },
    body: '{}',
  });
  return res.status;
}

it('routes source events, replies and emitted events by the Triggers to the function URLs', async () => {
  const stateDir = path.join(dir, 'state');
  const service = await startEventService({
    manifestDir: dir,
    kubeConfig: kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()),
    functionUrl: `${functions.url}/fn/{name}`,
    stateDir,
    authToken: 'fn-token',
    logger: captureLogger().logger,
  });
  try {
    await service.sources.ready;
    const client = createKubeClient(kubeConfigFromYaml(srv.cluster('main').kubeconfigYaml()));
    await client.create(GVK.ConfigMap, { metadata: { name: 'c1', namespace: 'svc' }, data: {} });
    await waitFor('the add at echo', () => functions.calls.find((c) => c.fn === 'echo' && c.name === 'c1'));
    await waitFor('the reply at recorder', () =>
      functions.calls.find((c) => c.fn === 'recorder' && c.type === 'test.reply'),
    );
    expect(await post(`${service.ingressUrl}/svc/default`, 'test.emitted', 'e1')).toBe(202);
    await waitFor('the emitted event at recorder', () =>
      functions.calls.find((c) => c.fn === 'recorder' && c.type === 'test.emitted'),
    );
    expect(await post(`${service.ingressUrl}/svc/default`, 'test.fail', 'f1')).toBe(202);
    await waitFor(
      'two attempts at broken',
      () => functions.calls.filter((c) => c.fn === 'broken').length === 2,
    );
    const letters = await deadLetters(path.join(stateDir, 'dlq'));
    expect(letters.map((l) => [l.event.type, l.reason])).toEqual([['test.fail', 'retries-exhausted']]);
    expect(functions.calls.every((c) => c.auth === 'Bearer fn-token')).toBe(true);
    expect(await post(`${service.ingressUrl}/svc/default`, '', 'bad')).toBe(400);
  } finally {
    await service.stop();
  }
});

async function deadLetters(dlqDir: string): Promise<DeadLetter[]> {
  for (let i = 0; i < 250; i++) {
    const letters = (await Promise.all((await storesIn(dlqDir)).map((s) => s.list()))).flat();
    if (letters.length > 0) return letters;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no dead letter in ${dlqDir}`);
}

function runMain(args: string[]): {
  done: Promise<{ code: number | null; out: string }>;
  child: ReturnType<typeof spawn>;
} {
  const child = spawn(process.execPath, ['scripts/launch.mjs', 'triggers/plane/main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LANDSCAPE_FUNCTION_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
  return { done, child };
}

it('runs from the command line, prints its ingress, and stops on SIGTERM', async () => {
  const { child, done } = runMain([
    '--manifests',
    dir,
    '--kubeconfig',
    path.join(dir, 'kubeconfig'),
    '--function-url',
    `${functions.url}/cli/{name}`,
    '--port',
    '0',
  ]);
  let ingress = '';
  child.stdout!.on('data', (c: Buffer) => {
    for (const line of c.toString().split('\n')) {
      if (!line.includes('event service ready')) continue;
      ingress = (JSON.parse(line) as { ingress: string }).ingress;
    }
  });
  await waitFor('the ready line', () => ingress !== '' && ingress, 30_000);
  expect(await post(`${ingress}/svc/default`, 'test.emitted', 'cli-1')).toBe(202);
  await waitFor('the event at the recorder URL', () =>
    functions.calls.find((c) => c.fn === 'recorder' && c.type === 'test.emitted' && c.auth === undefined),
  );
  child.kill('SIGTERM');
  expect((await done).code).toBe(0);
}, 40_000);

it('says what is wrong with a bad --function-url and exits 1', async () => {
  const { done } = runMain([
    '--manifests',
    dir,
    '--kubeconfig',
    path.join(dir, 'kubeconfig'),
    '--function-url',
    'https://x/fn',
  ]);
  const r = await done;
  expect(r.code).toBe(1);
  expect(r.out).toContain('--function-url "https://x/fn": must contain {name}');
}, 30_000);
