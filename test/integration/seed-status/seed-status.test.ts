/**
 * The seed-status function's handler against the embedded API server: a managed seed gets
 * capacity and allocatable from its ManagedSeed's gardenlet config (shoots: 250 by default), a
 * plain seed from the function's config (its own entry, else the default); nothing is written when
 * nothing changed; an invalid config (reserved above capacity), from either place, is a Warning
 * Event on the Seed with upstream's message and nothing written; a resync looks at every Seed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import type { Seed } from '../../../shared/api/core.js';
import { GVK } from '../../../shared/api/gvk.js';
import { createLogger } from '../../../shared/log/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../../../shared/kube/index.js';
import { createSeedStatusInstance, runSeedStatusEvent } from '../../../functions/seed-status/handler.js';
import { crdFiles } from '../../../shared/api/crds.js';

const CONFIG = `default:
  capacity: {shoots: 50}
seeds:
  plain-a: {capacity: {shoots: 100}, reserved: {shoots: 10}}
  bad-a: {capacity: {shoots: 1}, reserved: {shoots: 2}}
`;

let srv: ApiServer;
let dir: string;
let client: KubeClient;
let instance: ReturnType<typeof createSeedStatusInstance>;

type Kind = 'Seed' | 'ManagedSeed';

function apiEvent(kind: Kind, namespace: string, name: string, action = 'update'): unknown {
  const apiVersion =
    kind === 'Seed' ? 'core.gardener.cloud/v1beta1' : 'seedmanagement.gardener.cloud/v1alpha1';
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'https://apiserver',
    type: `dev.knative.apiserver.ref.${action}`,
    kind,
    apiversion: apiVersion,
    namespace,
    name,
    data: { kind, ...(namespace ? { namespace } : {}), name, apiVersion },
  };
}

const seedSpec = {
  provider: { type: 'local', region: 'local' },
  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
};

async function seed(name: string): Promise<Seed> {
  return client.get<Seed>(GVK.Seed, undefined, name);
}

async function warnings(name: string): Promise<{ reason: string; message: string; type: string }[]> {
  const list = await client.list<{
    metadata: object;
    involvedObject: { kind: string; name: string };
    type: string;
    reason: string;
    message: string;
  }>(GVK.Event, 'default');
  return list.items.filter((e) => e.involvedObject.kind === 'Seed' && e.involvedObject.name === name);
}

beforeAll(async () => {
  srv = await startApiServer({ crdFiles: crdFiles(), clusters: ['garden'] });
  dir = await mkdtemp(join(tmpdir(), 'seed-status-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, srv.cluster('garden').kubeconfigYaml());
  client = createKubeClient(kubeConfigFromYaml(srv.cluster('garden').kubeconfigYaml()));
  await client.create(GVK.Namespace, { metadata: { name: 'garden' } });
  for (const name of ['managed-a', 'managed-bad', 'plain-a', 'plain-b', 'bad-a']) {
    await client.create(GVK.Seed, { metadata: { name }, spec: seedSpec });
  }
  instance = createSeedStatusInstance({
    env: () => ({ KUBECONFIG: kubeconfig, CONFIG_FILE: '/seed-status.yaml' }),
    readFile: () => Promise.resolve(CONFIG),
    log: createLogger({ name: 'test', level: 'error' }),
  });
}, 30_000);

afterAll(async () => {
  await instance?.close();
  await srv?.stop();
  await rm(dir, { recursive: true, force: true });
});

it("a managed seed: the ManagedSeed's gardenlet config, shoots 250 by default", async () => {
  await client.create(GVK.ManagedSeed, {
    metadata: { name: 'managed-a', namespace: 'garden' },
    spec: { shoot: { name: 'shoot-a' }, gardenlet: { config: { seedConfig: { spec: seedSpec } } } },
  });
  expect(await runSeedStatusEvent(instance, apiEvent('ManagedSeed', 'garden', 'managed-a', 'add'))).toEqual([
    'write',
  ]);
  expect((await seed('managed-a')).status).toMatchObject({
    capacity: { shoots: '250' },
    allocatable: { shoots: '250' },
  });
  // reserved in the gardenlet config: allocatable follows
  await client.mergePatch(
    GVK.ManagedSeed,
    { namespace: 'garden', name: 'managed-a' },
    { spec: { gardenlet: { config: { resources: { reserved: { shoots: 50 } } } } } },
  );
  expect(await runSeedStatusEvent(instance, apiEvent('ManagedSeed', 'garden', 'managed-a'))).toEqual([
    'write',
  ]);
  expect((await seed('managed-a')).status).toMatchObject({
    capacity: { shoots: '250' },
    allocatable: { shoots: '200' },
  });
});

it("a plain seed: the function's config, written only when it changes", async () => {
  expect(await runSeedStatusEvent(instance, apiEvent('Seed', '', 'plain-a', 'add'))).toEqual(['write']);
  const written = await seed('plain-a');
  expect(written.status).toMatchObject({ capacity: { shoots: '100' }, allocatable: { shoots: '90' } });
  expect(await runSeedStatusEvent(instance, apiEvent('Seed', '', 'plain-a'))).toEqual(['unchanged']);
  expect((await seed('plain-a')).metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
  // a Seed without an entry of its own: the default
  expect(await runSeedStatusEvent(instance, apiEvent('Seed', '', 'plain-b'))).toEqual(['write']);
  expect((await seed('plain-b')).status).toMatchObject({
    capacity: { shoots: '50' },
    allocatable: { shoots: '50' },
  });
  // a delete event is nothing to do
  expect(await runSeedStatusEvent(instance, apiEvent('Seed', '', 'plain-b', 'delete'))).toEqual([]);
});

it('an invalid config is a Warning Event on the Seed, and nothing is written', async () => {
  expect(await runSeedStatusEvent(instance, apiEvent('Seed', '', 'bad-a'))).toEqual(['invalid']);
  expect((await seed('bad-a')).status?.capacity).toBeUndefined();
  expect(await warnings('bad-a')).toEqual([
    expect.objectContaining({
      type: 'Warning',
      reason: 'InvalidResourcesConfig',
      message:
        'invalid resources in seed-status config seeds.bad-a: resources.reserved.shoots: Invalid value: "2": reserved must be lower or equal to capacity',
    }),
  ]);

  await client.create(GVK.ManagedSeed, {
    metadata: { name: 'managed-bad', namespace: 'garden' },
    spec: {
      shoot: { name: 'shoot-b' },
      gardenlet: { config: { resources: { capacity: { shoots: 10 }, reserved: { shoots: 11 } } } },
    },
  });
  expect(await runSeedStatusEvent(instance, apiEvent('ManagedSeed', 'garden', 'managed-bad', 'add'))).toEqual(
    ['invalid'],
  );
  expect((await seed('managed-bad')).status?.capacity).toBeUndefined();
  expect(await warnings('managed-bad')).toEqual([
    expect.objectContaining({
      type: 'Warning',
      message: expect.stringContaining('reserved must be lower or equal to capacity'),
    }),
  ]);
});

it('a resync (the seedmanagement-resync ping) looks at every Seed', async () => {
  await client.patchStatus(GVK.Seed, { name: 'plain-b' }, { status: { capacity: { shoots: '7' } } });
  const outcomes = await runSeedStatusEvent(instance, {
    specversion: '1.0',
    id: randomUUID(),
    source: '/apis/v1/namespaces/landscape-system/pingsources/seedmanagement-resync',
    type: 'dev.knative.sources.ping',
    data: { job: 'resync', family: 'seedmanagement' },
  });
  expect(outcomes.sort()).toEqual(['invalid', 'invalid', 'unchanged', 'unchanged', 'write']);
  expect((await seed('plain-b')).status).toMatchObject({ capacity: { shoots: '50' } });
});
