import { startTestServer, type TestServer } from './support/cluster.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe('write-time normalisation of core kinds', () => {
  it('folds a Secret’s stringData into base64 data and defaults its type to Opaque', async () => {
    const created = await t.core.createNamespacedSecret({
      namespace: 'default',
      body: {
        metadata: { name: 's1' },
        stringData: { password: 'hunter2' },
        data: { user: Buffer.from('bob').toString('base64') },
      },
    });
    expect(created.type).toBe('Opaque');
    expect(created.data).toEqual({ user: 'Ym9i', password: Buffer.from('hunter2').toString('base64') });
    expect(created.stringData).toBeUndefined();
    const updated = await t.core.replaceNamespacedSecret({
      name: 's1',
      namespace: 'default',
      body: { ...created, stringData: { password: 'changed' } },
    });
    expect(Buffer.from(updated.data!.password, 'base64').toString()).toBe('changed');
  });

  it('gives a new Namespace the kubernetes finalizer and phase Active, whatever the body says', async () => {
    const ns = await t.core.createNamespace({
      body: { metadata: { name: 'norm' }, status: { phase: 'Terminating' } },
    });
    expect(ns.spec?.finalizers).toEqual(['kubernetes']);
    expect(ns.status?.phase).toBe('Active');
  });
});
