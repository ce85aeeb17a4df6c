import { jest } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import type { KubeClient, ListOptions } from '../../shared/kube/index.js';
import type { ScaleMapper } from './discovery.js';
import { createSeedView, SecretAbsentError, type KubeConfigCache, type SeedView } from './seedview.js';

const SECRET = 'dwd-api-server-probe-secret';
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://api.example.com"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

type Obj = Record<string, unknown>;
const secret = (
  namespace: string,
  rv: string,
  data: Record<string, string> = { kubeconfig: b64(KUBECONFIG) },
): Obj => ({
  metadata: { name: SECRET, namespace, resourceVersion: rv },
  data,
});
const deployment = (namespace: string, name: string, replicas: number): Obj => ({
  metadata: { name, namespace, uid: `${namespace}-${name}` },
  spec: { replicas },
  status: { readyReplicas: replicas },
});

type Lists = Record<string, unknown[] | Error>;

function seedServing(lists: Lists): {
  seed: KubeClient;
  list: jest.Mock<(gvk: GroupVersionKind, ns?: string, o?: ListOptions) => Promise<{ items: unknown[] }>>;
} {
  const list = jest.fn((gvk: GroupVersionKind, ns?: string, o?: ListOptions) => {
    const key = `${gvk.plural}${o?.fieldSelector ? `?${o.fieldSelector}` : ''}`;
    const items = lists[key];
    if (items instanceof Error) return Promise.reject(items);
    if (items === undefined || ns !== undefined)
      return Promise.reject(new Error(`unexpected list ${key} in ${ns}`));
    return Promise.resolve({ items });
  });
  return { seed: { list } as unknown as KubeClient, list };
}

const mapper: ScaleMapper = (ref) =>
  ref.kind === 'Deployment'
    ? Promise.resolve(GVK.Deployment)
    : Promise.resolve({
        group: 'example.com',
        version: 'v1',
        apiVersion: 'example.com/v1',
        kind: ref.kind,
        plural: 'widgets',
        namespaced: true,
      });

const status = (code: number, reason: string): ApiException<string> =>
  new ApiException(code, reason, JSON.stringify({ kind: 'Status', reason, code }), {});

function view(
  lists: Lists,
  cache: KubeConfigCache = new Map(),
): ReturnType<typeof seedServing> & { view: SeedView } {
  const s = seedServing(lists);
  return { ...s, view: createSeedView({ seed: s.seed, mapper, secretName: SECRET, cache }) };
}

describe('the seed view of a pass', () => {
  it('lists the probe Secrets once by name across namespaces, and parses each once per resourceVersion', async () => {
    const cache: KubeConfigCache = new Map();
    const lists = { [`secrets?metadata.name=${SECRET}`]: [secret('a', '1'), secret('b', '1')] };
    const first = view(lists, cache);
    const [a, b] = await Promise.all([first.view.kubeConfig('a'), first.view.kubeConfig('b')]);
    expect(a?.getCurrentCluster()?.server).toBe('https://api.example.com');
    expect(b).toBeDefined();
    expect(first.list).toHaveBeenCalledTimes(1);
    // a later view: same resourceVersion, same parsed kubeconfig; a changed one is parsed again
    const second = view({ [`secrets?metadata.name=${SECRET}`]: [secret('a', '1'), secret('b', '2')] }, cache);
    expect(await second.view.kubeConfig('a')).toBe(a);
    expect(await second.view.kubeConfig('b')).not.toBe(b);
  });

  it('says which Secret is missing or unusable, as a read by name would', async () => {
    const { view: v } = view({ [`secrets?metadata.name=${SECRET}`]: [secret('a', '1', { other: 'x' })] });
    await expect(v.kubeConfig('a')).rejects.toThrow(`secret a/${SECRET} has no key "kubeconfig"`);
    await expect(v.kubeConfig('b')).rejects.toBeInstanceOf(SecretAbsentError);
  });

  it('leaves the Secret to a read by name when the list is refused (403), and fails probes when it fails otherwise', async () => {
    expect(
      await view({ [`secrets?metadata.name=${SECRET}`]: status(403, 'Forbidden') }).view.kubeConfig('a'),
    ).toBe(undefined);
    const throttled = view({ [`secrets?metadata.name=${SECRET}`]: status(429, 'TooManyRequests') });
    await expect(throttled.view.kubeConfig('a')).rejects.toMatchObject({ code: 429 });
  });

  it('lists Machines once and groups them by namespace; a failed list is read again by the next caller', async () => {
    const m = (ns: string, name: string): Obj => ({ metadata: { name, namespace: ns } });
    const lists: Lists = { machines: new Error('boom') };
    const { view: v, list } = view(lists);
    await expect(v.machines('a')).rejects.toThrow('boom');
    lists['machines'] = [m('a', 'm1'), m('a', 'm2'), m('b', 'm3')];
    expect((await v.machines('a')).map((x) => x.metadata?.name)).toEqual(['m1', 'm2']);
    expect(await v.machines('c')).toEqual([]);
    await v.machines('b');
    expect(list).toHaveBeenCalledTimes(2);
  });

  it('lists a Deployment dependent by name; none of that name is null; other kinds and written namespaces are unknown', async () => {
    const { view: v, list } = view({
      'deployments?metadata.name=kcm': [deployment('a', 'kcm', 2)],
      'widgets?metadata.name=w': [],
    });
    const kcm = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kcm' };
    expect(await v.dependent(kcm, 'a')).toMatchObject({ spec: { replicas: 2 } });
    expect(await v.dependent(kcm, 'b')).toBeNull();
    expect(
      await v.dependent({ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' }, 'a'),
    ).toBeUndefined();
    v.written('a');
    expect(await v.dependent(kcm, 'a')).toBeUndefined();
    expect(list).toHaveBeenCalledTimes(1); // the Widget (no spec.replicas scale) is not listed
  });

  it('leaves a dependent whose list fails to a read of its own', async () => {
    const { view: v } = view({ 'deployments?metadata.name=kcm': status(403, 'Forbidden') });
    expect(
      await v.dependent({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'kcm' }, 'a'),
    ).toBeUndefined();
  });
});
