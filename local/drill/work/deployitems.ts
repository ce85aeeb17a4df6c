/**
 * DeployItems of both deployers (as test/e2e/deployers.test.ts drives them): `scale.mockItems`
 * mock items and `scale.manifestItems` manifest items, each of which applies one ConfigMap of its
 * own into a target cluster added for the drill (`<ns>-target`, its kubeconfig in a Secret the
 * Target points at). Created in parallel batches; disturb() deletes `scale.deleteShare` of the
 * succeeded items of each kind. The end state: every live item Succeeded with jobIDFinished ==
 * jobID, its ConfigMap in the target (manifest) or its export Secret next to it (mock), every
 * deleted item gone with its ConfigMap and export Secret, and no SyncObject left locked, whoever
 * holds it (./locks.ts).
 */
import pLimit from 'p-limit';
import { GVK } from '../../../shared/api/gvk.js';
import { isFinalDeployItemPhase } from '../../../shared/api/landscaper.js';
import type { KubeClient } from '../../../shared/kube/index.js';
import type { DrillContext, Workload, WorkloadCheck } from '../types.js';
import { isHeld, lockLines, locksLeftHeld, type LockView } from './locks.js';
import {
  createOnce,
  deleteOnce,
  embeddedCluster,
  ensureNamespace,
  label,
  listAll,
  sleep,
  waitFor,
} from './retry.js';

const BATCH = 20;
const TARGET = 'target';
const TARGET_SECRET = 'target-kubeconfig';
/** How long disturb() waits for enough items to succeed before deleting what there is. */
const DISTURB_WAIT_MS = 180_000;
/** A lock held at the check is read again after this long: left held when nothing changed. */
const LOCK_RECHECK_MS = 5_000;
const EXPORT_PREFIX = 'mock-export-';

type ItemKind = 'mock' | 'manifest';

interface Item {
  metadata: {
    name: string;
    namespace?: string;
    deletionTimestamp?: string;
    ownerReferences?: { kind: string; name: string }[];
  };
  status?: {
    phase?: string;
    jobID?: string;
    jobIDFinished?: string;
    lastError?: { message?: string };
    exportRef?: { name?: string };
  };
}

interface Plan {
  namespace: string;
  appsNamespace: string;
  targetCluster: string;
  names: Record<ItemKind, string[]>;
}

interface State extends Plan {
  target?: KubeClient;
  deleted: Set<string>;
}

const configMapName = (item: string): string => `${item}-cm`;

function plan(ctx: DrillContext): Plan {
  const names = (kind: ItemKind, n: number): string[] =>
    Array.from({ length: n }, (_, i) => `${kind}-${String(i).padStart(4, '0')}`);
  return {
    namespace: label(ctx.namespace, 'items'),
    appsNamespace: label(ctx.namespace, 'apps'),
    targetCluster: label(ctx.namespace, 'target'),
    names: { mock: names('mock', ctx.scale.mockItems), manifest: names('manifest', ctx.scale.manifestItems) },
  };
}

function mockItem(namespace: string, name: string): Record<string, unknown> {
  return {
    metadata: { name, namespace, labels: { 'drill.landscape.dev/kind': 'mock' } },
    spec: {
      type: 'landscaper.gardener.cloud/mock',
      config: {
        apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
        kind: 'ProviderConfiguration',
        providerStatus: { item: name },
        // written by the deployer to a Secret owned by the item (an export Secret)
        export: { exportedBy: name },
      },
    },
  };
}

function manifestItem(namespace: string, name: string, appsNamespace: string): Record<string, unknown> {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: configMapName(name), namespace: appsNamespace },
    data: { item: name },
  };
  return {
    metadata: { name, namespace, labels: { 'drill.landscape.dev/kind': 'manifest' } },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-manifest',
      target: { name: TARGET },
      config: {
        apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
        kind: 'ProviderConfiguration',
        updateStrategy: 'update',
        manifests: [{ policy: 'manage', manifest: configMap }],
      },
    },
  };
}

/** The target cluster, its namespace for the ConfigMaps, and the Target with its kubeconfig Secret. */
async function setUpTarget(ctx: DrillContext, s: State): Promise<void> {
  const { client, kubeconfig } = await embeddedCluster(ctx.landscape, s.targetCluster);
  s.target = client;
  await ensureNamespace(client, s.appsNamespace);
  await ensureNamespace(ctx.main, s.namespace);
  await createOnce(ctx.main, GVK.Secret, {
    metadata: { name: TARGET_SECRET, namespace: s.namespace },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  });
  await createOnce(ctx.main, GVK.Target, {
    metadata: { name: TARGET, namespace: s.namespace },
    spec: {
      type: 'landscaper.gardener.cloud/kubernetes-cluster',
      // no key: the Secret's data is the Target content, {kubeconfig: <yaml>}
      secretRef: { name: TARGET_SECRET },
    },
  });
}

async function createItems(ctx: DrillContext, s: State): Promise<void> {
  const limit = pLimit(BATCH);
  const objects = [
    ...s.names.mock.map((n) => mockItem(s.namespace, n)),
    ...s.names.manifest.map((n) => manifestItem(s.namespace, n, s.appsNamespace)),
  ];
  await Promise.all(objects.map((o) => limit(() => createOnce(ctx.main, GVK.DeployItem, o))));
}

const finished = (i: Item): boolean =>
  isFinalDeployItemPhase(i.status?.phase) &&
  Boolean(i.status?.jobID) &&
  i.status?.jobIDFinished === i.status?.jobID;

const succeeded = (i: Item): boolean => finished(i) && i.status?.phase === 'Succeeded';

function kindOf(name: string): ItemKind {
  return name.startsWith('mock-') ? 'mock' : 'manifest';
}

/** `n` of `from`, picked with the drill's seeded randomness. */
function pick(from: string[], n: number, random: () => number): string[] {
  const pool = [...from];
  const out: string[] = [];
  while (out.length < n && pool.length > 0) out.push(...pool.splice(Math.floor(random() * pool.length), 1));
  return out;
}

/** The items of each kind to delete, once enough of them succeeded (or the wait is over). */
async function chooseDeletions(ctx: DrillContext, s: State): Promise<string[]> {
  const want: Record<ItemKind, number> = {
    mock: Math.round(ctx.scale.deleteShare * s.names.mock.length),
    manifest: Math.round(ctx.scale.deleteShare * s.names.manifest.length),
  };
  let done: Item[] = [];
  const enough = async (): Promise<boolean> => {
    done = (await listAll<Item>(ctx.main, GVK.DeployItem, s.namespace)).filter(succeeded);
    const count = (k: ItemKind): number => done.filter((i) => kindOf(i.metadata.name) === k).length;
    return count('mock') >= want.mock && count('manifest') >= want.manifest;
  };
  if (!(await waitFor(enough, DISTURB_WAIT_MS, 1_000)))
    ctx.log('deployitems: not enough items succeeded in time; deleting what there is', { want });
  const of = (k: ItemKind): string[] => done.map((i) => i.metadata.name).filter((n) => kindOf(n) === k);
  return [...pick(of('mock'), want.mock, ctx.random), ...pick(of('manifest'), want.manifest, ctx.random)];
}

function problems(item: Item | undefined, name: string): string[] {
  if (!item) return [`item ${name} is gone though it was not deleted`];
  const st = item.status ?? {};
  if (!finished(item))
    return [
      `item ${name} not finished: phase ${st.phase}, jobID ${st.jobID}, jobIDFinished ${st.jobIDFinished}`,
    ];
  if (st.phase !== 'Succeeded') return [`item ${name} ${st.phase}: ${st.lastError?.message}`];
  return [];
}

async function locks(ctx: DrillContext, s: State): Promise<LockView[]> {
  return listAll<LockView>(ctx.main, GVK.SyncObject, s.namespace);
}

/** Locks still held, whoever holds them: held at two reads LOCK_RECHECK_MS apart, unchanged. */
async function lockProblems(ctx: DrillContext, s: State): Promise<string[]> {
  const first = await locks(ctx, s);
  if (!first.some(isHeld)) return [];
  await sleep(LOCK_RECHECK_MS);
  const left = locksLeftHeld(first, await locks(ctx, s));
  if (left.length === 0) return [];
  const pods = new Set(
    (await listAll<Item>(ctx.main, GVK.Pod, 'landscape-system'))
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name),
  );
  return lockLines(left, (pod) => pods.has(pod));
}

/** A live mock item's export Secret: referenced and there. */
function exportOf(n: string, item: Item | undefined, present: Set<string>): string[] {
  const ref = item?.status?.exportRef?.name;
  if (!ref) return [`item ${n} has no exportRef`];
  return present.has(ref) ? [] : [`export Secret ${ref} of live item ${n} missing`];
}

/** Export Secrets: every live mock item's is there, none is left of a deleted item. */
function exportProblems(secrets: Item[], items: Map<string, Item>, live: string[]): string[] {
  const present = new Set(secrets.map((x) => x.metadata.name));
  const alive = new Set(live);
  const ownerOf = (x: Item): string =>
    x.metadata.ownerReferences?.find((o) => o.kind === 'DeployItem')?.name ?? '';
  return [
    ...live.filter((x) => kindOf(x) === 'mock').flatMap((n) => exportOf(n, items.get(n), present)),
    ...secrets
      .filter((x) => x.metadata.name.startsWith(EXPORT_PREFIX) && !alive.has(ownerOf(x)))
      .map((x) => `export Secret ${x.metadata.name} of deleted item ${ownerOf(x)} still there`),
  ];
}

async function configMapProblems(s: State, live: string[]): Promise<string[]> {
  if (!s.target) return ['the target cluster was never set up'];
  const present = new Set(
    (await listAll<Item>(s.target, GVK.ConfigMap, s.appsNamespace)).map((c) => c.metadata.name),
  );
  const out: string[] = [];
  for (const n of live.filter((x) => kindOf(x) === 'manifest'))
    if (!present.has(configMapName(n))) out.push(`ConfigMap ${configMapName(n)} of live item ${n} missing`);
  for (const n of [...s.deleted].filter((x) => kindOf(x) === 'manifest'))
    if (present.has(configMapName(n)))
      out.push(`ConfigMap ${configMapName(n)} of deleted item ${n} still in the target`);
  return out;
}

async function settled(ctx: DrillContext, s: State): Promise<boolean> {
  const items = await listAll<Item>(ctx.main, GVK.DeployItem, s.namespace);
  const byName = new Map(items.map((i) => [i.metadata.name, i]));
  if ([...s.deleted].some((n) => byName.has(n))) return false;
  const live = [...s.names.mock, ...s.names.manifest].filter((n) => !s.deleted.has(n));
  const done = live.every((n) => {
    const i = byName.get(n);
    return i !== undefined && finished(i);
  });
  if (!done) return false;
  // the export Secrets of deleted items collected; no lock held (syncobject-cleanup gives back a
  // killed replica's)
  const secrets = await listAll<Item>(ctx.main, GVK.Secret, s.namespace);
  return exportProblems(secrets, byName, live).length === 0 && !(await locks(ctx, s)).some(isHeld);
}

async function check(ctx: DrillContext, s: State): Promise<WorkloadCheck> {
  const all = [...s.names.mock, ...s.names.manifest];
  const byName = new Map(
    (await listAll<Item>(ctx.main, GVK.DeployItem, s.namespace)).map((i) => [i.metadata.name, i]),
  );
  const live = all.filter((n) => !s.deleted.has(n));
  const lost = [
    ...live.flatMap((n) => problems(byName.get(n), n)),
    ...[...s.deleted].filter((n) => byName.has(n)).map((n) => `deleted item ${n} still present`),
    ...(await configMapProblems(s, live)),
    ...exportProblems(await listAll<Item>(ctx.main, GVK.Secret, s.namespace), byName, live),
    ...(await lockProblems(ctx, s)),
  ];
  return { operations: all.length + s.deleted.size, lost };
}

export function deployItems(): Workload {
  let state: State | undefined;
  const get = (ctx: DrillContext): State => (state ??= { ...plan(ctx), deleted: new Set() });
  return {
    name: 'deployitems',
    async start(ctx) {
      const s = get(ctx);
      await setUpTarget(ctx, s);
      await createItems(ctx, s);
      ctx.log('deployitems: created', { mock: s.names.mock.length, manifest: s.names.manifest.length });
    },
    async disturb(ctx) {
      const s = get(ctx);
      const names = await chooseDeletions(ctx, s);
      const limit = pLimit(BATCH);
      // marked before the delete: a delete whose answer is lost may still have taken
      for (const n of names) s.deleted.add(n);
      await Promise.all(names.map((n) => limit(() => deleteOnce(ctx.main, GVK.DeployItem, s.namespace, n))));
      ctx.log('deployitems: deleted', { items: names.length });
    },
    settled: (ctx) => settled(ctx, get(ctx)),
    check: (ctx) => check(ctx, get(ctx)),
  };
}
