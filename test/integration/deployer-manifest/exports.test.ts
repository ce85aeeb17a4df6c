/**
 * Exports of the manifest deployer through the deployer host against the embedded API server,
 * upstream's exporter_test.go cases (existing ConfigMap, one created later, a referenced
 * ConfigMap, a Secret referenced from a ServiceAccount's array) and its CreateOrUpdateExport:
 * the Secret `<item>-export` with key `config`, named by `status.exportRef`, gone with the item.
 */
import { GVK } from '../../../shared/api/gvk.js';
import type { DeployItem } from '../../../shared/api/landscaper.js';
import { configMap, entry, NS, read, startHarness, v2, type Harness } from './harness.js';
import { runtimeHarness, type RuntimeHarness } from './runtime-harness.js';

let h: Harness;
let rh: RuntimeHarness;

beforeAll(async () => {
  h = await startHarness();
  rh = await runtimeHarness(h);
}, 60_000);

afterAll(() => h?.stop());

const ref = (kind: string, name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind,
  name,
  namespace: NS,
});

async function exported(item: DeployItem): Promise<unknown> {
  const secret = await h.host.get<{ metadata?: object; data: Record<string, string> }>(
    GVK.Secret,
    item.status?.exportRef?.namespace,
    item.status?.exportRef?.name ?? '',
  );
  return JSON.parse(Buffer.from(secret.data.config, 'base64').toString());
}

describe('manifest deployer exports', () => {
  it('exports fields of deployed and referenced objects into <item>-export', async () => {
    const sa = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'my-sa', namespace: NS },
      secrets: [{ name: 'sa-token' }],
    };
    const token = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sa-token', namespace: NS },
      data: { somekey: Buffer.from('abc').toString('base64') },
    };
    const config = v2(
      [
        entry(configMap('exp-cm', { somekey: 'abc' })),
        entry(configMap('my-data', { name: 'my-ref-data', namespace: NS })),
        entry(configMap('my-ref-data', { somekey: 'ref' })),
        entry(sa),
        entry(token),
      ],
      {
        exports: {
          exports: [
            { key: 'exportkey', jsonPath: 'data.somekey', fromResource: ref('ConfigMap', 'exp-cm') },
            {
              key: 'nested.ref',
              jsonPath: 'data',
              fromResource: ref('ConfigMap', 'my-data'),
              fromObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', jsonPath: 'data.somekey' },
            },
            {
              key: 'nested.token',
              jsonPath: 'secrets[0]',
              fromResource: ref('ServiceAccount', 'my-sa'),
              fromObjectRef: { apiVersion: 'v1', kind: 'Secret', jsonPath: 'data.somekey' },
            },
          ],
        },
      },
    );
    const item = await rh.createItem('exp', config);
    const done = await rh.steps(item, 20, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({
      phase: 'Succeeded',
      exportRef: { name: 'exp-export', namespace: NS },
    });
    expect(await exported(done)).toEqual({
      exportkey: 'abc',
      nested: { ref: 'ref', token: Buffer.from('abc').toString('base64') },
    });
    const secret = await h.host.get<DeployItem>(GVK.Secret, NS, 'exp-export');
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'DeployItem', name: 'exp', uid: done.metadata?.uid }),
    ]);

    // uninstall: the objects and the export Secret go
    await h.host.delete(GVK.DeployItem, { namespace: NS, name: 'exp' });
    // the delete job, as the DeployItem trigger starts it
    await h.host.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'exp' },
      { status: { jobID: 'job-2' } },
      { subresource: 'status' },
    );
    await rh.steps(item, 20);
    expect(await read(h.host, GVK.DeployItem, NS, 'exp')).toBeUndefined();
    expect(await read(h.host, GVK.Secret, NS, 'exp-export')).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, NS, 'exp-cm')).toBeUndefined();
  }, 60_000);

  it('waits (Progressing, requeued) for an export whose object appears later', async () => {
    const config = v2([entry(configMap('deployed', { a: '1' }))], {
      exports: {
        exports: [{ key: 'later', jsonPath: 'data.somekey', fromResource: ref('ConfigMap', 'made-later') }],
      },
    });
    const item = await rh.createItem('exp-later', config);
    const waiting = await rh.steps(item, 3);
    expect(waiting.status?.phase).toBe('Progressing');
    expect(waiting.status?.exportRef).toBeUndefined();
    expect(rh.requeues).toEqual([expect.objectContaining({ name: 'exp-later' })]);
    await h.target.create(GVK.ConfigMap, configMap('made-later', { somekey: 'late' }));
    const done = await rh.steps(item, 20, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: 'job-1' });
    expect(await exported(done)).toEqual({ later: 'late' });
  }, 60_000);
});
