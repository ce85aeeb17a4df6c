/**
 * kubectl apply --server-side: create-or-update with field ownership, a conflicting second
 * manager (409 with kubectl's conflict text), --force-conflicts, and the upgrade from client-side apply.
 */
import { useLandscape } from './support.js';

const landscape = useLandscape();

const cm = (data: Record<string, string>): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data });

describe('kubectl apply --server-side', () => {
  it('creates and updates, recording the manager in managedFields', async () => {
    const l = landscape();
    const created = await l.kubectlOk(['apply', '--server-side', '-f', '-'], { input: cm({ a: '1' }) });
    expect(created.stdout).toBe('configmap/ssa serverside-applied\n');
    await l.kubectlOk(['apply', '--server-side', '-f', '-'], { input: cm({ a: '1', b: '2' }) });
    const obj = await l.getJson(['configmap', 'ssa', '--show-managed-fields']);
    expect(obj.data).toEqual({ a: '1', b: '2' });
    const kubectl = obj.metadata.managedFields.find((f: { manager: string }) => f.manager === 'kubectl');
    expect(kubectl).toMatchObject({ operation: 'Apply', fieldsType: 'FieldsV1' });
    expect(Object.keys(kubectl.fieldsV1['f:data']).sort()).toEqual(['f:a', 'f:b']);
  });

  it('refuses a second manager changing an owned field, as a cluster does', async () => {
    const l = landscape();
    const r = await l.kubectl(['apply', '--server-side', '--field-manager=other', '-f', '-'], {
      input: cm({ a: 'changed' }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect(r.stderr).toContain('Please review the fields above--they currently have other managers.');
    expect((await l.getJson(['configmap', 'ssa'])).data.a).toBe('1');
  });

  it('moves the field to the second manager with --force-conflicts', async () => {
    const l = landscape();
    await l.kubectlOk(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], {
      input: cm({ a: 'changed' }),
    });
    const obj = await l.getJson(['configmap', 'ssa', '--show-managed-fields']);
    expect(obj.data.a).toBe('changed');
    const other = obj.metadata.managedFields.find((f: { manager: string }) => f.manager === 'other');
    expect(Object.keys(other.fieldsV1['f:data'])).toEqual(['f:a']);
    const kubectl = obj.metadata.managedFields.find((f: { manager: string }) => f.manager === 'kubectl');
    expect(Object.keys(kubectl.fieldsV1['f:data'])).toEqual(['f:b']);
  });

  it('takes over a client-side applied object without conflicts (the kubectl upgrade path)', async () => {
    const l = landscape();
    const doc = (image: string): string =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ssa-web' },
        spec: {
          selector: { matchLabels: { app: 'ssa-web' } },
          template: {
            metadata: { labels: { app: 'ssa-web' } },
            spec: { containers: [{ name: 'web', image }] },
          },
        },
      });
    await l.kubectlOk(['apply', '-f', '-'], { input: doc('nginx:1.25') });
    await l.kubectlOk(['apply', '--server-side', '-f', '-'], { input: doc('nginx:1.26') });
    const d = await l.getJson(['deployment', 'ssa-web']);
    expect(d.spec.template.spec.containers[0].image).toBe('nginx:1.26');
  });

  it('keeps managedFields through a kubectl get -o yaml → edit → replace round trip', async () => {
    const l = landscape();
    const shown = await l.kubectlOk(['get', 'configmap', 'ssa', '-o', 'json', '--show-managed-fields']);
    const obj = JSON.parse(shown.stdout);
    const managers = obj.metadata.managedFields.map((f: { manager: string }) => f.manager).sort();
    obj.data.c = '3';
    await l.kubectlOk(['replace', '-f', '-'], { input: JSON.stringify(obj) });
    const after = await l.getJson(['configmap', 'ssa', '--show-managed-fields']);
    expect(after.data.c).toBe('3');
    const afterManagers = after.metadata.managedFields.map((f: { manager: string }) => f.manager);
    expect(afterManagers).toEqual(expect.arrayContaining(managers));
    const replaced = after.metadata.managedFields.find(
      (f: { manager: string }) => f.manager === 'kubectl-replace',
    );
    expect(replaced).toMatchObject({ operation: 'Update' });
    expect(Object.keys(replaced.fieldsV1['f:data'])).toEqual(['f:c']);
  });
});
