/**
 * Persistence of the embedded API server (`dataDir`): a clean stop and start keeps every
 * cluster's objects (built-ins, product CRD instances, a CRD created at run time and its
 * objects) with their uids and resourceVersions, new writes continue the resourceVersions, and
 * watches resume across the restart; after kill -9 of a server in a child process, writes older
 * than the flush interval (1 s) are there.
 */
import * as k8s from '@kubernetes/client-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/index.js';
import { kubeConfigFor, rawRequest } from './support/cluster.js';
import {
  deployItem,
  deployment,
  DEPLOYITEMS,
  eventually,
  MERGE_PATCH,
  WatchRecorder,
} from './conformance.js';
import { productCrdFiles } from './support/crds.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLUSTERS = ['main', 'shoot-a'];

/** The ports each data directory's clusters listened on last: a restart listens on them again. */
const PORTS = new Map<string, Record<string, number>>();

/**
 * startApiServer with a data directory (a variable, not a literal: the option may not be declared
 * yet), its CA kept beside it (`pkiDir`, as npm start keeps it) and the ports of the last start: a
 * restarted cluster is the same cluster, so its kube-root-ca.crt ConfigMaps and default/kubernetes
 * endpoints need no write.
 */
async function startWithData(dataDir: string): Promise<ApiServer> {
  const ports = PORTS.get(dataDir) ?? {};
  const opts: ApiServerOptions & { dataDir: string } = {
    crdFiles: productCrdFiles(),
    clusters: CLUSTERS.map((name) => (ports[name] ? { name, port: ports[name] } : name)),
    dataDir,
    pkiDir: join(dataDir, 'pki'),
  };
  const server = await startApiServer(opts);
  PORTS.set(dataDir, Object.fromEntries(server.clusters().map((c) => [c.name, c.port])));
  return server;
}

const WIDGETS = { group: 'example.com', version: 'v1', plural: 'widgets' } as const;

const WIDGET_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
};

const widgetCrd: k8s.V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: WIDGET_SCHEMA } }],
  },
};

interface Clients {
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  custom: k8s.CustomObjectsApi;
  ext: k8s.ApiextensionsV1Api;
  kc: k8s.KubeConfig;
}

function clients(server: ApiServer, cluster = 'main'): Clients {
  const kc = kubeConfigFor(server, cluster);
  return {
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    ext: kc.makeApiClient(k8s.ApiextensionsV1Api),
  };
}

/** uid and resourceVersion of an object, for comparing before and after a restart. */
const identity = (o: { metadata?: { uid?: string; resourceVersion?: string } }): string =>
  `${o.metadata?.uid}@${o.metadata?.resourceVersion}`;

/** The list resourceVersion of a cluster: its current resourceVersion. */
async function currentRV(c: Clients): Promise<number> {
  return Number((await c.core.listNamespace()).metadata!.resourceVersion);
}

describe('persistence: clean stop and start', () => {
  let dataDir: string;
  let server: ApiServer | undefined;
  const watches: WatchRecorder[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'apiserver-data-'));
  });
  afterAll(async () => {
    for (const w of watches) w.stop();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every object of every cluster with its uid and resourceVersion, and resumes watches', async () => {
    server = await startWithData(dataDir);
    let main = clients(server);
    let shoot = clients(server, 'shoot-a');
    const before: Record<string, string> = {};
    for (const ns of (await main.core.listNamespace()).items)
      before[`ns/${ns.metadata!.name}`] = identity(ns);
    await main.core.createNamespace({ body: { metadata: { name: 'persist' } } });
    const cm = await main.core.createNamespacedConfigMap({
      namespace: 'persist',
      body: { metadata: { name: 'cm', labels: { app: 'x' } }, data: { a: '1' } },
    });
    const cmCreatedRV = cm.metadata!.resourceVersion!;
    const cmPatched = await main.core.patchNamespacedConfigMap(
      { name: 'cm', namespace: 'persist', body: { data: { a: '2' } } },
      MERGE_PATCH,
    );
    await main.core.createNamespacedConfigMap({ namespace: 'persist', body: { metadata: { name: 'gone' } } });
    await main.core.deleteNamespacedConfigMap({ name: 'gone', namespace: 'persist' });
    const dep = await main.apps.createNamespacedDeployment({ namespace: 'persist', body: deployment('web') });
    const secret = await main.core.createNamespacedSecret({
      namespace: 'persist',
      body: { metadata: { name: 's' }, stringData: { password: 'hunter2' } },
    });
    const di = (await main.custom.createNamespacedCustomObject({
      ...DEPLOYITEMS,
      namespace: 'persist',
      body: deployItem('di'),
    })) as k8s.KubernetesObject;
    await main.ext.createCustomResourceDefinition({ body: widgetCrd });
    const crd = await eventually(async () => {
      const c = await main.ext.readCustomResourceDefinition({ name: 'widgets.example.com' });
      if (!c.status?.conditions?.some((x) => x.type === 'Established'))
        throw new Error('not established yet');
      return c;
    });
    const widget = (await main.custom.createNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'persist',
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } },
    })) as k8s.KubernetesObject;
    const onShoot = await shoot.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'on-shoot' }, data: { where: 'shoot' } },
    });
    Object.assign(before, {
      cm: identity(cmPatched),
      dep: identity(dep),
      secret: identity(secret),
      di: identity(di),
      crd: identity(crd),
      widget: identity(widget),
      onShoot: identity(onShoot),
    });
    const lastMain = await currentRV(main);
    const lastShoot = await currentRV(shoot);
    await server.stop();
    server = undefined;

    server = await startWithData(dataDir);
    main = clients(server);
    shoot = clients(server, 'shoot-a');
    // the same objects (default namespaces not created again), and no write at start
    await new Promise((r) => setTimeout(r, 50));
    expect(await currentRV(main)).toBe(lastMain);
    expect(await currentRV(shoot)).toBe(lastShoot);
    const after: Record<string, string> = {};
    for (const ns of (await main.core.listNamespace()).items) {
      if (ns.metadata!.name !== 'persist') after[`ns/${ns.metadata!.name}`] = identity(ns);
    }
    const cmNow = await main.core.readNamespacedConfigMap({ name: 'cm', namespace: 'persist' });
    expect(cmNow.data).toEqual({ a: '2' });
    expect(cmNow.metadata!.labels).toEqual({ app: 'x' });
    const secretNow = await main.core.readNamespacedSecret({ name: 's', namespace: 'persist' });
    expect(Buffer.from(secretNow.data!.password, 'base64').toString()).toBe('hunter2');
    const widgetNow = (await main.custom.getNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'persist',
      name: 'w',
    })) as k8s.KubernetesObject & { spec: { size: number } };
    expect(widgetNow.spec.size).toBe(3);
    Object.assign(after, {
      cm: identity(cmNow),
      dep: identity(await main.apps.readNamespacedDeployment({ name: 'web', namespace: 'persist' })),
      secret: identity(secretNow),
      di: identity(
        (await main.custom.getNamespacedCustomObject({
          ...DEPLOYITEMS,
          namespace: 'persist',
          name: 'di',
        })) as k8s.KubernetesObject,
      ),
      crd: identity(await main.ext.readCustomResourceDefinition({ name: 'widgets.example.com' })),
      widget: identity(widgetNow),
      onShoot: identity(await shoot.core.readNamespacedConfigMap({ name: 'on-shoot', namespace: 'default' })),
    });
    expect(after).toEqual(before);
    expect(
      (await main.core.listNamespacedConfigMap({ namespace: 'persist' })).items.map((c) => c.metadata!.name),
    ).toEqual(['cm', 'kube-root-ca.crt']);
    // the CRD's kind is served again (discovery too), and the clusters are still apart
    const discovery = await rawRequest(server, 'main', '/apis/example.com/v1');
    expect(discovery.json.resources.map((r: { name: string }) => r.name)).toContain('widgets');
    expect((await shoot.core.listNamespacedConfigMap({ namespace: 'persist' })).items).toEqual([]);

    // a watch from the last resourceVersion before the stop gets only what comes after it
    const fromLast = await WatchRecorder.start(main.kc, '/api/v1/namespaces/persist/configmaps', {
      resourceVersion: String(lastMain),
    });
    watches.push(fromLast);
    // one from before the restart replays what happened since, across the restart
    const fromCreate = await WatchRecorder.start(main.kc, '/api/v1/namespaces/persist/configmaps', {
      resourceVersion: cmCreatedRV,
    });
    watches.push(fromCreate);
    const widgets = await WatchRecorder.start(main.kc, '/apis/example.com/v1/namespaces/persist/widgets', {
      resourceVersion: String(lastMain),
    });
    watches.push(widgets);
    const fresh = await main.core.createNamespacedConfigMap({
      namespace: 'persist',
      body: { metadata: { name: 'after-restart' } },
    });
    expect(Number(fresh.metadata!.resourceVersion)).toBe(lastMain + 1);
    await main.custom.patchNamespacedCustomObject(
      { ...WIDGETS, namespace: 'persist', name: 'w', body: { spec: { size: 4 } } },
      MERGE_PATCH,
    );
    await fromLast.waitForCount(1);
    await fromCreate.waitForCount(4);
    await widgets.waitForCount(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(fromLast.summary()).toEqual(['ADDED after-restart']);
    expect(fromCreate.summary()).toEqual([
      'MODIFIED cm',
      'ADDED gone',
      'DELETED gone',
      'ADDED after-restart',
    ]);
    expect(widgets.summary()).toEqual(['MODIFIED w']);
    const shootNext = await shoot.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'shoot-next' } },
    });
    expect(Number(shootNext.metadata!.resourceVersion)).toBe(lastShoot + 1);
  });

  it('keeps writes made after a restart across the next one, and refuses a second server on the same data', async () => {
    const main = clients(server!);
    await main.core.patchNamespacedConfigMap(
      { name: 'cm', namespace: 'persist', body: { data: { a: '3' } } },
      MERGE_PATCH,
    );
    await expect(startWithData(dataDir)).rejects.toThrow(/already open in this process/);
    const last = await currentRV(main);
    await server!.stop();
    server = await startWithData(dataDir);
    const again = clients(server);
    expect(await currentRV(again)).toBe(last);
    expect((await again.core.readNamespacedConfigMap({ name: 'cm', namespace: 'persist' })).data).toEqual({
      a: '3',
    });
    expect(
      (await again.core.listNamespacedConfigMap({ namespace: 'persist' })).items.map((c) => c.metadata!.name),
    ).toEqual(['after-restart', 'cm', 'kube-root-ca.crt']);
  });
});

/** Resolves with the first stdout line of the child that parses as JSON; rejects when it exits first. */
function firstJsonLine<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`no output within ${timeoutMs} ms:\n${out}\n${err}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        clearTimeout(timer);
        resolve(JSON.parse(line) as T);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready:\n${out}\n${err}`));
    });
  });
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe('persistence: kill -9', () => {
  let tmp: string;
  let child: ChildProcess | undefined;
  let server: ApiServer | undefined;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'apiserver-kill-'));
  });
  afterAll(async () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await server?.stop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('loses at most the last second of writes', async () => {
    const dataDir = join(tmp, 'data');
    const outDir = join(tmp, 'out');
    await mkdir(outDir);
    const script = join(tmp, 'server.mts');
    const index = pathToFileURL(join(REPO_ROOT, 'packages/kube-apiserver/src/index.ts')).href;
    await writeFile(
      script,
      [
        `import { writeFile } from 'node:fs/promises';`,
        `import { startApiServer } from ${JSON.stringify(index)};`,
        `const [dataDir, outDir] = process.argv.slice(2);`,
        `const server = await startApiServer({ crdFiles: ${JSON.stringify(productCrdFiles())}, clusters: ${JSON.stringify(CLUSTERS)}, dataDir });`,
        `const kubeconfigs = {};`,
        `for (const c of server.clusters()) {`,
        `  kubeconfigs[c.name] = outDir + '/' + c.name + '.kubeconfig';`,
        `  await writeFile(kubeconfigs[c.name], c.kubeconfigYaml());`,
        `}`,
        `console.log(JSON.stringify({ pid: process.pid, kubeconfigs }));`,
      ].join('\n'),
    );
    child = spawn('npx', ['tsx', script, dataDir, outDir], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    const ready = await firstJsonLine<{ pid: number; kubeconfigs: Record<string, string> }>(child, 60_000);
    const api = (cluster: string): Promise<k8s.CoreV1Api> =>
      readFile(ready.kubeconfigs[cluster], 'utf8').then((yaml) => {
        const kc = new k8s.KubeConfig();
        kc.loadFromString(yaml);
        return kc.makeApiClient(k8s.CoreV1Api);
      });
    const [main, shoot] = [await api('main'), await api('shoot-a')];
    const written = new Map<string, string>();
    for (let i = 0; i < 20; i++) {
      const cm = await main.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `early-${i}` }, data: { i: String(i) } },
      });
      written.set(`main/early-${i}`, identity(cm));
    }
    await main
      .patchNamespacedConfigMap(
        { name: 'early-0', namespace: 'default', body: { data: { i: 'patched' } } },
        MERGE_PATCH,
      )
      .then((cm) => written.set('main/early-0', identity(cm)));
    await main.deleteNamespacedConfigMap({ name: 'early-1', namespace: 'default' });
    written.delete('main/early-1');
    const onShoot = await shoot.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'early-shoot' } },
    });
    written.set('shoot-a/early-shoot', identity(onShoot));
    await new Promise((r) => setTimeout(r, 1500));
    // writes of the last moment: maybe kept, maybe lost
    for (let i = 0; i < 5; i++)
      await main.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `late-${i}` } },
      });
    process.kill(ready.pid, 'SIGKILL');
    await exited;
    await eventually(() => expect(gone(ready.pid)).toBe(true), 5000);

    server = await startWithData(dataDir);
    const found = new Map<string, string>();
    for (const cluster of CLUSTERS) {
      const list = await clients(server, cluster).core.listNamespacedConfigMap({ namespace: 'default' });
      for (const cm of list.items)
        if (cm.metadata!.name!.startsWith('early-'))
          found.set(`${cluster}/${cm.metadata!.name}`, identity(cm));
    }
    expect(Object.fromEntries(found)).toEqual(Object.fromEntries(written));
    const late = (await clients(server).core.listNamespacedConfigMap({ namespace: 'default' })).items
      .map((c) => c.metadata!.name!)
      .filter((n) => n.startsWith('late-'));
    // whatever survived of the last writes is a prefix of them (the log is cut at a write)
    expect(late).toEqual(['late-0', 'late-1', 'late-2', 'late-3', 'late-4'].slice(0, late.length));
    const next = await clients(server).core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after-kill' } },
    });
    const highest = Math.max(...[...found.values()].map((v) => Number(v.split('@')[1])));
    expect(Number(next.metadata!.resourceVersion)).toBeGreaterThan(highest);
  }, 90_000);
});
