/**
 * `patchAfterDeployment` and `patchBeforeDelete` through the deployer host against the
 * embedded API server (upstream objectapplier.go PatchAfterDeployment, AnnotateAndPatchBeforeDelete):
 * the patch is in the object once the item Succeeded; the before-delete patch is written to the
 * object (seen in the target's audit) before its delete.
 */
import { GVK } from '../../../shared/api/gvk.js';
import { configMap, NS, read, startHarness, v2, type Harness } from './harness.js';
import { runtimeHarness, type RuntimeHarness } from './runtime-harness.js';

let h: Harness;
let rh: RuntimeHarness;

beforeAll(async () => {
  h = await startHarness(undefined, true);
  rh = await runtimeHarness(h);
}, 60_000);

afterAll(() => h?.stop());

describe('manifest deployer patches', () => {
  it('patches after the deployment and before the delete', async () => {
    const config = v2([
      {
        manifest: configMap('patched', { a: '1' }),
        patchAfterDeployment: { data: { b: 'after' }, metadata: { labels: { phase: 'deployed' } } },
        patchBeforeDelete: { data: { c: 'before-delete' } },
      },
      { manifest: configMap('plain', { a: '1' }) },
    ]);
    const item = await rh.createItem('patches', config);
    const done = await rh.steps(item, 20, (i) => i.status?.phase === 'Succeeded');
    expect(done.status?.phase).toBe('Succeeded');
    const cm = await read(h.target, GVK.ConfigMap, NS, 'patched');
    expect(cm).toMatchObject({ data: { a: '1', b: 'after' }, metadata: { labels: { phase: 'deployed' } } });
    expect((await read(h.target, GVK.ConfigMap, NS, 'plain')).data).toEqual({ a: '1' });
    expect(done.status?.providerStatus).toMatchObject({
      managedResources: expect.arrayContaining([
        expect.objectContaining({ patchBeforeDelete: { data: { c: 'before-delete' } } }),
      ]),
    });

    const from = (h.srv.audit('target')?.records() ?? []).at(-1)?.seq ?? 0;
    await h.host.delete(GVK.DeployItem, { namespace: NS, name: 'patches' });
    await h.host.mergePatch(
      GVK.DeployItem,
      { namespace: NS, name: 'patches' },
      { status: { jobID: 'job-2' } },
      { subresource: 'status' },
    );
    await rh.steps(item, 20);
    expect(await read(h.target, GVK.ConfigMap, NS, 'patched')).toBeUndefined();
    const records = (h.srv.audit('target')?.records() ?? []).filter(
      (r) => r.seq > from && r.resource === 'configmaps' && r.name === 'patched',
    );
    expect(records.map((r) => r.type)).toEqual(['MODIFIED', 'DELETED']);
    expect((records[0].object as { data?: unknown }).data).toEqual({
      a: '1',
      b: 'after',
      c: 'before-delete',
    });
  }, 60_000);
});
