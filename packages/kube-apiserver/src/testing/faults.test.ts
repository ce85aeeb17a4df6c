/**
 * Test-only fault injection: the picking logic with an injected random, and the faults as a
 * client sees them on a real started cluster over HTTPS (409/429/500 Status answers, dropped
 * connections — with the write applied half of the time —, watches ended early, counts), and
 * what is never faulted (health, version, discovery, unauthenticated requests).
 */
import { request } from 'node:https';
import { rawRequest, type RawResponse } from '../../test/support/cluster.js';
import { FaultInjector, type FaultSpec } from './faults.js';
import { startApiServer, type ApiServer } from '../index.js';
import { scaled } from '../../test/support/timing.js';
import { productCrdFiles } from '../../test/support/crds.js';

/** A random that returns the given values in turn (then 0.999). */
function sequence(...values: number[]): () => number {
  return () => values.shift() ?? 0.999;
}

describe('FaultInjector.decide', () => {
  const injector = (spec: FaultSpec): FaultInjector => {
    const f = new FaultInjector();
    f.set(spec);
    return f;
  };

  it('is off by default and after set(undefined)', () => {
    const f = new FaultInjector();
    expect(f.spec).toBeUndefined();
    expect(f.decide(true)).toBeUndefined();
    f.set({ share: 1, kinds: ['error'] });
    expect(f.decide(true)).toEqual({ kind: 'error' });
    f.set(undefined);
    expect(f.decide(true)).toBeUndefined();
  });

  it('faults a request when random() < share, and picks the kind uniformly by the next draw', () => {
    const f = injector({
      share: 0.3,
      kinds: ['conflict', 'throttle', 'error'],
      random: sequence(0.3, 0.29, 0.0, 0.29, 0.34, 0.29, 0.99),
    });
    expect(f.decide(false)).toBeUndefined(); // 0.3 is not < 0.3
    expect(f.decide(false)).toEqual({ kind: 'conflict' });
    expect(f.decide(false)).toEqual({ kind: 'throttle' });
    expect(f.decide(false)).toEqual({ kind: 'error' });
    expect(f.counts()).toEqual({ conflict: 1, throttle: 1, error: 1, drop: 0, watchClosed: 0 });
  });

  it('drops a write after applying it when the third draw is < 0.5, before otherwise; reads always before', () => {
    const f = injector({ share: 1, kinds: ['drop'], random: sequence(0, 0, 0.49, 0, 0, 0.5, 0, 0, 0.1) });
    expect(f.decide(true)).toEqual({ kind: 'drop', afterApply: true });
    expect(f.decide(true)).toEqual({ kind: 'drop', afterApply: false });
    expect(f.decide(false)).toEqual({ kind: 'drop', afterApply: false });
    expect(f.counts().drop).toBe(3);
  });

  it('with writesOnly, leaves reads alone without drawing', () => {
    let draws = 0;
    const random = (): number => {
      draws++;
      return 0;
    };
    const f = injector({ share: 1, kinds: ['error'], writesOnly: true, random });
    expect(f.decide(false)).toBeUndefined();
    expect(draws).toBe(0);
    expect(f.decide(true)).toEqual({ kind: 'error' });
  });

  it('with share 0 never faults', () => {
    const f = injector({ share: 0, kinds: ['error'], random: () => 0 });
    for (let i = 0; i < 20; i++) expect(f.decide(true)).toBeUndefined();
    expect(f.counts().error).toBe(0);
  });

  it('gives watches a close delay of random * watchCloseMs, none without watchCloseMs', () => {
    expect(injector({ share: 0, kinds: [] }).watchCloseDelay()).toBeUndefined();
    expect(injector({ share: 0, kinds: [], watchCloseMs: 1000, random: () => 0.25 }).watchCloseDelay()).toBe(
      250,
    );
  });

  it('refuses a share outside 0..1, an unknown kind, and a share without kinds', () => {
    const f = new FaultInjector();
    expect(() => f.set({ share: 1.5, kinds: ['error'] })).toThrow(/share/);
    expect(() => f.set({ share: 0.5, kinds: ['boom' as never] })).toThrow(/unknown fault kind "boom"/);
    expect(() => f.set({ share: 0.5, kinds: [] })).toThrow(/at least one kind/);
    expect(f.spec).toBeUndefined();
  });

  it('starts the counts again at a new spec, keeps them when switched off', () => {
    const f = injector({ share: 1, kinds: ['throttle'] });
    f.decide(false);
    f.set(undefined);
    expect(f.counts().throttle).toBe(1);
    f.set({ share: 1, kinds: ['throttle'] });
    expect(f.counts().throttle).toBe(0);
  });
});

describe('faults on a started cluster', () => {
  let srv: ApiServer;
  beforeAll(async () => {
    srv = await startApiServer({ crdFiles: productCrdFiles(), clusters: ['main', 'other'] });
  });
  afterAll(() => srv.stop());
  afterEach(() => srv.cluster().faults.set(undefined));

  const faults = (): FaultInjector => srv.cluster().faults;
  const CM = '/api/v1/namespaces/default/configmaps';
  const DI = '/apis/landscaper.gardener.cloud/v1alpha1/namespaces/default/deployitems';
  const raw = (path: string, init?: Parameters<typeof rawRequest>[3]): Promise<RawResponse> =>
    rawRequest(srv, 'main', path, init);
  const createCm = (name: string): Promise<RawResponse> =>
    raw(CM, { method: 'POST', body: JSON.stringify({ metadata: { name }, data: { k: 'v' } }) });
  const exists = async (name: string): Promise<boolean> => (await raw(`${CM}/${name}`)).status === 200;

  it('is off by default: requests are served', async () => {
    expect(faults().spec).toBeUndefined();
    expect((await createCm('plain')).status).toBe(201);
    expect((await raw(`${CM}/plain`)).status).toBe(200);
  });

  it('share 0 serves normally', async () => {
    faults().set({ share: 0, kinds: ['error', 'drop'] });
    expect((await createCm('share-zero')).status).toBe(201);
    expect((await raw(CM)).status).toBe(200);
    expect(faults().counts()).toEqual({ conflict: 0, throttle: 0, error: 0, drop: 0, watchClosed: 0 });
  });

  it('conflict: 409 Conflict worded as kube-apiserver, nothing written', async () => {
    faults().set({ share: 1, kinds: ['conflict'] });
    const r = await raw(DI, {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'landscaper.gardener.cloud/v1alpha1',
        kind: 'DeployItem',
        metadata: { name: 'di-1' },
        spec: { type: 'landscaper.gardener.cloud/mock' },
      }),
    });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message:
        'Operation cannot be fulfilled on deployitems.landscaper.gardener.cloud "di-1": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'di-1', group: 'landscaper.gardener.cloud', kind: 'deployitems' },
    });
    faults().set(undefined);
    expect((await raw(`${DI}/di-1`)).status).toBe(404);
    expect(faults().counts().conflict).toBe(1);
  });

  it('throttle: 429 TooManyRequests with Retry-After: 1, on reads too (a status subresource)', async () => {
    faults().set({ share: 1, kinds: ['throttle'] });
    const r = await raw(`${CM}/plain`);
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    const status = await raw('/api/v1/namespaces/default/pods/none/status');
    expect(status.status).toBe(429);
    expect(faults().counts().throttle).toBe(2);
  });

  it('error: 500 InternalError before the write is applied', async () => {
    faults().set({ share: 1, kinds: ['error'] });
    const r = await createCm('errored');
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    faults().set(undefined);
    expect(await exists('errored')).toBe(false);
  });

  it('drop before applying: the connection is cut and nothing is written', async () => {
    faults().set({ share: 1, kinds: ['drop'], random: sequence(0, 0, 0.9) });
    await expect(createCm('dropped-before')).rejects.toThrow(/socket hang up|ECONNRESET/);
    faults().set(undefined);
    expect(await exists('dropped-before')).toBe(false);
  });

  it('drop after applying: the connection is cut but the write exists', async () => {
    faults().set({ share: 1, kinds: ['drop'], random: sequence(0, 0, 0.1) });
    await expect(createCm('dropped-after')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(faults().counts().drop).toBe(1);
    faults().set(undefined);
    const got = await raw(`${CM}/dropped-after`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual({ k: 'v' });
  });

  it('writesOnly leaves reads alone', async () => {
    faults().set({ share: 1, kinds: ['error'], writesOnly: true });
    expect((await raw(CM)).status).toBe(200);
    expect((await createCm('writes-only')).status).toBe(500);
  });

  it('never faults health, version, discovery, OpenAPI and access reviews; authentication still comes first', async () => {
    faults().set({ share: 1, kinds: ['error', 'throttle', 'drop', 'conflict'] });
    for (const path of [
      '/healthz',
      '/livez',
      '/readyz',
      '/version',
      '/api',
      '/apis',
      '/api/v1',
      '/openapi/v2',
    ])
      expect([path, (await raw(path)).status]).toEqual([path, 200]);
    const review = await raw('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
      }),
    });
    expect(review.json).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    expect((await raw(CM, { token: 'wrong' })).status).toBe(401);
    expect(faults().counts()).toEqual({ conflict: 0, throttle: 0, error: 0, drop: 0, watchClosed: 0 });
  });

  it('is per cluster', async () => {
    faults().set({ share: 1, kinds: ['error'] });
    expect(srv.cluster('other').faults.spec).toBeUndefined();
    expect((await rawRequest(srv, 'other', CM)).status).toBe(200);
  });

  /** Opens a watch; resolves with whether the server ended it before we aborted it. */
  function watchUntilEnd(path: string, abortAfterMs: number): Promise<{ ended: boolean }> {
    const c = srv.cluster();
    const ca = c.kubeconfigYaml().match(/certificate-authority-data: (\S+)/)![1];
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, c.url),
        { headers: { Authorization: `Bearer ${c.token}` }, ca: Buffer.from(ca, 'base64') },
        (res) => {
          expect(res.statusCode).toBe(200);
          const timer = setTimeout(() => {
            req.destroy();
            resolve({ ended: false });
          }, abortAfterMs);
          res.resume();
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ ended: true });
          });
        },
      );
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
      req.end();
    });
  }

  it('ends watches cleanly after at most watchCloseMs, and never answers them with a status fault', async () => {
    faults().set({ share: 1, kinds: ['error'], watchCloseMs: 300 });
    // the condition: each watch is ended by the server (not by our abort, a limit scaled for a
    // loaded machine, far beyond watchCloseMs); no assertion on how long it took
    const limit = scaled(3000);
    const watches = await Promise.all([
      watchUntilEnd(`${CM}?watch=true`, limit),
      watchUntilEnd(`${DI}?watch=1&resourceVersion=0`, limit),
      watchUntilEnd(`/api/v1/watch/namespaces/default/configmaps/plain`, limit),
    ]);
    for (const w of watches) expect(w.ended).toBe(true);
    expect(faults().counts()).toMatchObject({ error: 0, watchClosed: 3 });
  });

  it('leaves watches open without watchCloseMs', async () => {
    faults().set({ share: 1, kinds: ['error'] });
    const w = await watchUntilEnd(`${CM}?watch=true`, 500);
    expect(w.ended).toBe(false);
    expect(faults().counts().watchClosed).toBe(0);
  });
});
