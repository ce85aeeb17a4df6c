import { jest } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import type { KubeClient, KubeHttpRequest, KubeHttpResponse } from '../../shared/kube/index.js';
import { createDiscoveryMapper } from './discovery.js';

const WIDGETS = {
  kind: 'APIResourceList',
  groupVersion: 'example.com/v1',
  resources: [
    { name: 'widgets', kind: 'Widget', namespaced: true },
    { name: 'widgets/scale', kind: 'Scale', namespaced: true },
  ],
};
const GADGETS = {
  ...WIDGETS,
  resources: [
    ...WIDGETS.resources,
    { name: 'gadgets', kind: 'Gadget', namespaced: true },
    { name: 'gadgets/scale', kind: 'Scale' },
  ],
};

function seedServing(lists: Record<string, unknown>): {
  seed: KubeClient;
  request: jest.Mock<(r: KubeHttpRequest) => Promise<KubeHttpResponse>>;
} {
  const request = jest.fn((r: KubeHttpRequest): Promise<KubeHttpResponse> => {
    const body = lists[r.path];
    if (body === undefined)
      return Promise.reject(
        new ApiException(404, 'not found', '{"kind":"Status","reason":"NotFound","code":404}', {}),
      );
    if (body instanceof Error) return Promise.reject(body);
    return Promise.resolve({ status: 200, headers: {}, body: JSON.stringify(body) });
  });
  return { seed: { request } as unknown as KubeClient, request };
}

describe('the discovery RESTMapper', () => {
  let now = 0;
  const clock = { now: (): number => now };
  beforeEach(() => {
    now = 0;
  });

  it('maps a custom kind through /apis/<group>/<version> and reads it once within the TTL', async () => {
    const { seed, request } = seedServing({ '/apis/example.com/v1': WIDGETS });
    const map = createDiscoveryMapper(seed, { ...clock, ttlMs: 1_000 });
    const [a, b] = await Promise.all([
      map({ apiVersion: 'example.com/v1', kind: 'Widget' }),
      map({ apiVersion: 'example.com/v1', kind: 'Widget' }),
    ]);
    expect(a).toMatchObject({ group: 'example.com', version: 'v1', plural: 'widgets', namespaced: true });
    expect(b).toEqual(a);
    now = 999;
    await map({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(request).toHaveBeenCalledTimes(1);
    now = 1_000;
    await map({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(request).toHaveBeenCalledTimes(2);
    expect(request.mock.calls.map((c) => c[0].path)).toEqual([
      '/apis/example.com/v1',
      '/apis/example.com/v1',
    ]);
  });

  it('a bare Deployment ref is apps/v1, as before', async () => {
    const { seed, request } = seedServing({
      '/apis/apps/v1': {
        resources: [
          { name: 'deployments', kind: 'Deployment', namespaced: true },
          { name: 'deployments/scale', kind: 'Scale' },
        ],
      },
    });
    await expect(createDiscoveryMapper(seed, clock)({ kind: 'Deployment' })).resolves.toMatchObject({
      apiVersion: 'apps/v1',
      plural: 'deployments',
    });
    expect(request.mock.calls[0][0].path).toBe('/apis/apps/v1');
  });

  it('a kind missing from a cached list: the list is read again once (a CRD installed since)', async () => {
    const lists: Record<string, unknown> = { '/apis/example.com/v1': WIDGETS };
    const { seed, request } = seedServing(lists);
    const map = createDiscoveryMapper(seed, clock);
    await map({ apiVersion: 'example.com/v1', kind: 'Widget' });
    lists['/apis/example.com/v1'] = GADGETS;
    await expect(map({ apiVersion: 'example.com/v1', kind: 'Gadget' })).resolves.toMatchObject({
      plural: 'gadgets',
    });
    expect(request).toHaveBeenCalledTimes(2);
    await expect(map({ apiVersion: 'example.com/v1', kind: 'Nope' })).rejects.toThrow(
      'no matches for kind "Nope" in version "example.com/v1"',
    );
    expect(request).toHaveBeenCalledTimes(3);
  });

  it('an unserved group version is no match and not cached; a failed read is thrown and not cached', async () => {
    const lists: Record<string, unknown> = { '/apis/example.com/v1': new Error('connection refused') };
    const { seed, request } = seedServing(lists);
    const map = createDiscoveryMapper(seed, clock);
    await expect(map({ apiVersion: 'other.io/v1', kind: 'Widget' })).rejects.toThrow(
      'no matches for kind "Widget" in version "other.io/v1"',
    );
    await expect(map({ apiVersion: 'example.com/v1', kind: 'Widget' })).rejects.toThrow('connection refused');
    lists['/apis/example.com/v1'] = WIDGETS;
    await expect(map({ apiVersion: 'example.com/v1', kind: 'Widget' })).resolves.toMatchObject({
      plural: 'widgets',
    });
    await expect(map({ apiVersion: 'other.io/v1', kind: 'Widget' })).rejects.toThrow('no matches');
    expect(request.mock.calls.map((c) => c[0].path)).toEqual([
      '/apis/other.io/v1',
      '/apis/example.com/v1',
      '/apis/example.com/v1',
      '/apis/other.io/v1',
    ]);
  });

  it('a kind without a scale subresource is refused by name', async () => {
    const { seed } = seedServing({
      '/api/v1': { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] },
    });
    await expect(createDiscoveryMapper(seed, clock)({ apiVersion: 'v1', kind: 'ConfigMap' })).rejects.toThrow(
      'configmaps.core (kind "ConfigMap" in version "v1") has no scale subresource',
    );
  });
});
