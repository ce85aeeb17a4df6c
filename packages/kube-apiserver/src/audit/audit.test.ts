/**
 * The audit log of a cluster's writes (`audit` option) over real HTTPS requests: records in
 * order with the user of the request (admin token, ServiceAccount token), status writes, the
 * changes of in-process controllers (GC, namespace deletion) without a user, the resources
 * filter, copies; and ApiServer.restartCluster (data kept, same port, token and ServiceAccount
 * tokens, faults off, the audit log going on; refused without a data directory).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { rawRequest, type RawInit, type RawResponse } from '../../test/support/cluster.js';
import { auditResource, type AuditRecord } from './audit.js';
import { startApiServer, type ApiServer } from '../index.js';
import { productCrdFiles } from '../../test/support/crds.js';

const CM = '/api/v1/namespaces/default/configmaps';
const DI = '/apis/landscaper.gardener.cloud/v1alpha1/namespaces/default/deployitems';
const DI_RESOURCE = 'deployitems.landscaper.gardener.cloud';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const SA_USER = 'system:serviceaccount:default:robot';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(fn: () => T | undefined, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out');
    await sleep(20);
  }
}

function ok(r: RawResponse, status = 200): RawResponse {
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r;
}

/** Creates ServiceAccount default/robot and returns a token of it (TokenRequest). */
async function robotToken(srv: ApiServer, cluster = 'main'): Promise<string> {
  const raw = (path: string, init: RawInit): Promise<RawResponse> => rawRequest(srv, cluster, path, init);
  ok(
    await raw('/api/v1/namespaces/default/serviceaccounts', {
      method: 'POST',
      body: JSON.stringify({ metadata: { name: 'robot' } }),
    }),
    201,
  );
  const tr = await raw('/api/v1/namespaces/default/serviceaccounts/robot/token', {
    method: 'POST',
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }),
  });
  return (ok(tr, 201).json as { status: { token: string } }).status.token;
}

const deployItemBody = (name: string): string =>
  JSON.stringify({
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: { name },
    spec: { type: 'landscaper.gardener.cloud/mock' },
  });

/** What the records say, in short: `<type> <resource> <name> by <user>`. */
const brief = (records: readonly AuditRecord[], resources: string[]): string[] =>
  records
    .filter((r) => resources.includes(r.resource))
    .map((r) => `${r.type} ${r.resource} ${r.name} by ${r.user ?? '-'}`);

it('names resources as <plural> or <plural>.<group>', () => {
  expect(auditResource('/pods')).toBe('pods');
  expect(auditResource('landscaper.gardener.cloud/deployitems')).toBe(DI_RESOURCE);
});

describe('audit log', () => {
  let srv: ApiServer;
  let token: string;
  const raw = (path: string, init?: RawInit): Promise<RawResponse> => rawRequest(srv, 'main', path, init);
  beforeAll(async () => {
    srv = await startApiServer({ crdFiles: productCrdFiles(), clusters: ['main', 'other'], audit: true });
    token = await robotToken(srv);
  });
  afterAll(() => srv.stop());
  beforeEach(() => srv.audit()!.clear());

  it('is there for every cluster, with the bootstrap writes of each', () => {
    expect(srv.audit('other')).toBeDefined();
    expect(srv.audit('other')).not.toBe(srv.audit('main'));
    expect(srv.audit('absent')).toBeUndefined();
    const ns = srv
      .audit('other')!
      .records()
      .filter((r) => r.resource === 'namespaces');
    expect(ns.map((r) => r.name)).toEqual(['default', 'kube-system', 'kube-public', 'kube-node-lease']);
    expect(ns.every((r) => r.cluster === 'other' && r.user === undefined && r.type === 'ADDED')).toBe(true);
  });

  it('records create, status patch and delete in order, with the users of the requests', async () => {
    const before = Date.now();
    const created = ok(await raw(DI, { method: 'POST', body: deployItemBody('di-a') }), 201).json;
    ok(
      await raw(`${DI}/di-a/status`, {
        method: 'PATCH',
        body: JSON.stringify({ status: { phase: 'Succeeded', observedGeneration: 1 } }),
        headers: MERGE,
        token,
      }),
    );
    ok(await raw(`${DI}/di-a`, { method: 'DELETE', token }));
    const records = srv.audit()!.records();
    expect(brief(records, [DI_RESOURCE])).toEqual([
      `ADDED ${DI_RESOURCE} di-a by admin`,
      `MODIFIED ${DI_RESOURCE} di-a by ${SA_USER}`,
      `DELETED ${DI_RESOURCE} di-a by ${SA_USER}`,
    ]);
    const [add, mod, del] = records.filter((r) => r.resource === DI_RESOURCE);
    expect(add.seq < mod.seq && mod.seq < del.seq).toBe(true);
    expect(add.time).toBeGreaterThanOrEqual(before);
    expect(add).toMatchObject({ cluster: 'main', namespace: 'default', uid: created.metadata.uid });
    expect(add.old).toBeUndefined();
    expect(add.object).toEqual(created);
    expect(mod.old).toEqual(created);
    expect((mod.object!.status as { phase: string }).phase).toBe('Succeeded');
    expect(del.object).toBeUndefined();
    expect(del.old).toEqual(mod.object);
  });

  it('numbers the records 1, 2, ... and keeps numbering after clear()', async () => {
    const other = srv.audit('other')!;
    const last = other.records().at(-1)!.seq;
    expect(other.records().map((r) => r.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    other.clear();
    expect(other.records()).toHaveLength(0);
    ok(await rawRequest(srv, 'other', CM, { method: 'POST', body: '{"metadata":{"name":"n"}}' }), 201);
    expect(other.records().map((r) => r.seq)).toEqual([last + 1]);
  });

  it('keeps copies: later changes and changes to a record alter neither', async () => {
    ok(await raw(CM, { method: 'POST', body: '{"metadata":{"name":"copied"},"data":{"k":"1"}}' }), 201);
    ok(await raw(`${CM}/copied`, { method: 'PATCH', body: '{"data":{"k":"2"}}', headers: MERGE }));
    const [added, modified] = srv
      .audit()!
      .records()
      .filter((r) => r.name === 'copied');
    expect(added.object!.data).toEqual({ k: '1' });
    expect(modified.object!.data).toEqual({ k: '2' });
    (modified.object!.data as Record<string, string>).k = 'mutated';
    expect(ok(await raw(`${CM}/copied`)).json.data).toEqual({ k: '2' });
    expect(modified.object).not.toBe(modified.old);
  });

  it('records what the garbage collector deletes without a user', async () => {
    const owner = ok(await raw(CM, { method: 'POST', body: '{"metadata":{"name":"owner"}}' }), 201).json;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid };
    const dependent = { metadata: { name: 'dependent', ownerReferences: [ref] } };
    ok(await raw(CM, { method: 'POST', body: JSON.stringify(dependent), token }), 201);
    ok(await raw(`${CM}/owner`, { method: 'DELETE' }));
    await eventually(() =>
      srv
        .audit()!
        .records()
        .find((r) => r.name === 'dependent' && r.type === 'DELETED'),
    );
    expect(brief(srv.audit()!.records(), ['configmaps'])).toEqual([
      'ADDED configmaps owner by admin',
      `ADDED configmaps dependent by ${SA_USER}`,
      'DELETED configmaps owner by admin',
      'DELETED configmaps dependent by -',
    ]);
  });

  it('records what namespace deletion deletes without a user', async () => {
    const NS = '/api/v1/namespaces';
    ok(await raw(NS, { method: 'POST', body: '{"metadata":{"name":"doomed"}}', token }), 201);
    ok(await raw(`${NS}/doomed/configmaps`, { method: 'POST', body: '{"metadata":{"name":"inside"}}' }), 201);
    ok(await raw(`${NS}/doomed`, { method: 'DELETE', token }));
    await eventually(() =>
      srv
        .audit()!
        .records()
        .find((r) => r.name === 'doomed' && r.type === 'DELETED'),
    );
    const records = srv.audit()!.records();
    // the root-ca-cert-publisher's ConfigMap comes and goes without a user too
    expect(brief(records, ['configmaps'])).toEqual([
      'ADDED configmaps kube-root-ca.crt by -',
      'ADDED configmaps inside by admin',
      'DELETED configmaps inside by -',
      'DELETED configmaps kube-root-ca.crt by -',
    ]);
    const ns = records.filter((r) => r.resource === 'namespaces' && r.name === 'doomed');
    expect(ns[0]).toMatchObject({ type: 'ADDED', user: SA_USER });
    expect(ns[1]).toMatchObject({ type: 'MODIFIED', user: SA_USER }); // deletionTimestamp set
    expect(ns.at(-1)!.type).toBe('DELETED');
    expect(ns.at(-1)!.user).toBeUndefined();
  });

  it('keeps the users of concurrent requests apart', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `c-${i}`);
    await Promise.all(
      names.map(async (name, i) =>
        ok(
          await raw(CM, {
            method: 'POST',
            body: JSON.stringify({ metadata: { name } }),
            token: i % 2 ? token : undefined,
          }),
          201,
        ),
      ),
    );
    for (const r of srv
      .audit()!
      .records()
      .filter((x) => x.name.startsWith('c-')))
      expect([r.name, r.user]).toEqual([r.name, Number(r.name.slice(2)) % 2 ? SA_USER : 'admin']);
  });
});

describe('audit options', () => {
  it('keeps only the resources asked for', async () => {
    const srv = await startApiServer({
      crdFiles: productCrdFiles(),
      audit: { resources: ['configmaps', DI_RESOURCE] },
    });
    try {
      ok(await rawRequest(srv, 'main', CM, { method: 'POST', body: '{"metadata":{"name":"x"}}' }), 201);
      ok(await rawRequest(srv, 'main', DI, { method: 'POST', body: deployItemBody('y') }), 201);
      ok(
        await rawRequest(srv, 'main', '/api/v1/namespaces/default/secrets', {
          method: 'POST',
          body: '{"metadata":{"name":"z"}}',
        }),
        201,
      );
      // the kube-root-ca.crt ConfigMaps of the four namespaces made at start, then the requests'
      expect(brief(srv.audit()!.records(), ['configmaps', DI_RESOURCE, 'secrets', 'namespaces'])).toEqual([
        ...Array.from({ length: 4 }, () => 'ADDED configmaps kube-root-ca.crt by -'),
        'ADDED configmaps x by admin',
        `ADDED ${DI_RESOURCE} y by admin`,
      ]);
      expect(srv.audit()!.records()).toHaveLength(6);
    } finally {
      await srv.stop();
    }
  });

  it('is off by default', async () => {
    const srv = await startApiServer({ crdFiles: productCrdFiles() });
    try {
      expect(srv.audit()).toBeUndefined();
      expect(srv.cluster().audit).toBeUndefined();
    } finally {
      await srv.stop();
    }
  });
});

/** Opens a watch and resolves when the server ends it (or the connection is cut). */
function watchEnd(srv: ApiServer, path: string): Promise<void> {
  const c = srv.cluster();
  const ca = c.kubeconfigYaml().match(/certificate-authority-data: (\S+)/)![1];
  return new Promise((resolve) => {
    const req = request(
      new URL(path, c.url),
      { headers: { Authorization: `Bearer ${c.token}` }, ca: Buffer.from(ca, 'base64') },
      (res) => {
        res.resume();
        res.on('close', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end();
  });
}

describe('restartCluster', () => {
  let dir: string;
  let srv: ApiServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restart-'));
    srv = await startApiServer({
      crdFiles: productCrdFiles(),
      clusters: ['main', 'side'],
      dataDir: dir,
      audit: true,
    });
  });
  afterAll(async () => {
    await srv.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps objects, port, token, ServiceAccount tokens and the audit log; faults start off', async () => {
    const old = srv.cluster();
    const token = await robotToken(srv);
    const created = ok(
      await rawRequest(srv, 'main', CM, { method: 'POST', body: '{"metadata":{"name":"kept"}}' }),
      201,
    );
    const rvBefore = Number(created.json.metadata.resourceVersion);
    old.faults.set({ share: 1, kinds: ['error'], writesOnly: true });
    const seqBefore = srv.audit()!.records().at(-1)!.seq;
    const watch = watchEnd(srv, `${CM}?watch=true`);
    await sleep(50);

    const fresh = await srv.restartCluster('main');
    await watch; // cut by the shutdown

    expect(fresh).not.toBe(old);
    expect(srv.cluster()).toBe(fresh);
    expect(old.running).toBe(false);
    expect(fresh.running).toBe(true);
    expect(fresh.url).toBe(old.url);
    expect(fresh.token).toBe(old.token);
    expect(fresh.kubeconfigYaml()).toBe(old.kubeconfigYaml());
    expect(fresh.faults.spec).toBeUndefined();
    expect(fresh.audit).toBe(old.audit);

    const got = ok(await rawRequest(srv, 'main', `${CM}/kept`, { token }));
    expect(got.json.metadata.uid).toBe(created.json.metadata.uid);
    const next = ok(
      await rawRequest(srv, 'main', CM, { method: 'POST', body: '{"metadata":{"name":"after"}}', token }),
      201,
    );
    expect(Number(next.json.metadata.resourceVersion)).toBeGreaterThan(rvBefore);
    const after = srv
      .audit()!
      .records()
      .filter((r) => r.seq > seqBefore);
    expect(brief(after, ['configmaps'])).toEqual([`ADDED configmaps after by ${SA_USER}`]);
    expect(srv.cluster('side').running).toBe(true);
  });

  it('refuses without a data directory, leaving the cluster running', async () => {
    const plain = await startApiServer({ crdFiles: productCrdFiles() });
    try {
      await expect(plain.restartCluster('main')).rejects.toThrow(
        /cannot restart cluster "main" without a dataDir: restarting would lose everything/,
      );
      expect(plain.cluster().running).toBe(true);
      await expect(plain.restartCluster('absent')).rejects.toThrow(/no cluster named "absent"/);
    } finally {
      await plain.stop();
    }
  });
});
