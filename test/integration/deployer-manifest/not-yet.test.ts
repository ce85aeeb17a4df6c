/**
 * "Not yet" through the deployer host (shared/deployer/host) against the embedded API
 * server: a manifest item whose namespace or kind does not exist yet stays Progressing with
 * upstream's error in lastError and is requeued (never waited on) until the namespace / CRD
 * appears — then it ends Succeeded in the same job — or the progressing timeout fires
 * (upstream: pkg/deployer/lib/resourcemanager/objectapplier.go, apiResourceHandler.go).
 */
import { GVK } from '../../../shared/api/gvk.js';
import { configMap, entry, exampleCrd, NS, read, startHarness, v2, type Harness } from './harness.js';
import { runtimeHarness, type RuntimeHarness } from './runtime-harness.js';

let h: Harness;
let rh: RuntimeHarness;

beforeAll(async () => {
  h = await startHarness();
  rh = await runtimeHarness(h);
}, 60_000);

afterAll(() => h?.stop());

const createItem: RuntimeHarness['createItem'] = (...a) => rh.createItem(...a);
const steps: RuntimeHarness['steps'] = (...a) => rh.steps(...a);

describe('manifest deployer: not yet', () => {
  it('a namespace created after the item: Progressing with the upstream error, then Succeeded in the same job', async () => {
    const ref = await createItem('ns-later', v2([entry(configMap('cm', { a: '1' }, 'later'))]));
    const first = await steps(ref, 1);
    expect(rh.requeues).toEqual([expect.objectContaining({ name: 'ns-later' })]);
    expect(first.status).toMatchObject({ phase: 'Progressing', jobID: 'job-1' });
    expect(first.status?.jobIDFinished).toBeUndefined();
    expect(first.status?.lastError).toMatchObject({
      operation: 'ApplyObjects',
      reason: 'ApplyNewObject',
      message: 'unable to create resource later/cm: namespaces "later" not found',
    });
    expect(first.status?.lastError?.codes).toBeUndefined();
    const again = await steps(ref, 2);
    expect(again.status).toMatchObject({ phase: 'Progressing', lastError: { reason: 'ApplyNewObject' } });

    await h.target.create(GVK.Namespace, { metadata: { name: 'later' } });
    const done = await steps(ref, 20, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobID: 'job-1', jobIDFinished: 'job-1' });
    expect(done.status?.lastError).toBeUndefined();
    expect(await read(h.target, GVK.ConfigMap, 'later', 'cm')).toMatchObject({ data: { a: '1' } });
    expect(done.status?.providerStatus).toMatchObject({
      managedResources: [{ resource: { kind: 'ConfigMap', namespace: 'later', name: 'cm' } }],
    });
  }, 60_000);

  it('what could be applied is applied and managed while another object waits for its namespace', async () => {
    const ref = await createItem(
      'partial',
      v2([entry(configMap('here', { a: '1' })), entry(configMap('there', { a: '1' }, 'later2'))]),
    );
    const first = await steps(ref, 1);
    expect(first.status?.phase).toBe('Progressing');
    expect(await read(h.target, GVK.ConfigMap, NS, 'here')).toBeDefined();
    expect(first.status?.providerStatus).toMatchObject({
      managedResources: [{ resource: { kind: 'ConfigMap', namespace: NS, name: 'here' } }],
    });
  }, 60_000);

  it('a kind whose CRD comes later: GetApiResource until the CRD is there', async () => {
    const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: NS } };
    const ref = await createItem('kind-later', v2([entry(gadget)]));
    const first = await steps(ref, 1);
    expect(first.status).toMatchObject({
      phase: 'Progressing',
      lastError: {
        operation: 'GetApiResource',
        reason: 'GetApiResourceList',
        message:
          'unable to get api resources for example.com/v1: the server could not find the requested resource',
      },
    });
    expect(first.status?.lastError?.codes).toBeUndefined();
    await h.target.create(GVK.CustomResourceDefinition, exampleCrd('Widget', 'widgets'));
    const sameGroup = await steps(ref, 20, (i) => i.status?.lastError?.reason === 'GetApiResource');
    expect(sameGroup.status?.lastError).toMatchObject({
      operation: 'GetApiResource',
      reason: 'GetApiResource',
      message: 'unable to get apiresource for example.com/v1, Kind=Gadget',
    });
    await h.target.create(GVK.CustomResourceDefinition, exampleCrd('Gadget', 'gadgets'));
    const done = await steps(ref, 40, (i) => i.status?.phase === 'Succeeded');
    expect(done.status).toMatchObject({ phase: 'Succeeded', jobIDFinished: 'job-1' });
  }, 60_000);

  it('the progressing timeout ends the wait (ERR_TIMEOUT)', async () => {
    // the deployer's clock stands still (a loaded machine must not let the 1 s pass by itself; the
    // job's initTime has whole seconds), then moves past the timeout
    rh.freeze(new Date(Math.floor(Date.now() / 1000) * 1000));
    const ref = await createItem('never', v2([entry(configMap('cm', {}, 'never-there'))]), '1s');
    const first = await steps(ref, 1);
    expect(first.status?.phase).toBe('Progressing');
    rh.advance(1100);
    const failed = await steps(ref, 5, (i) => i.status?.phase === 'Failed');
    expect(failed.status).toMatchObject({
      phase: 'Failed',
      jobIDFinished: 'job-1',
      lastError: { reason: 'ProgressingTimeout', codes: ['ERR_TIMEOUT'] },
    });
  }, 60_000);

  it('an invalid manifest next to a missing namespace is still a configuration problem', async () => {
    const ref = await createItem(
      'invalid-too',
      v2([entry(configMap('Not-Valid!', { a: '1' })), entry(configMap('cm', {}, 'nowhere'))]),
    );
    const item = await steps(ref, 1);
    expect(item.status).toMatchObject({
      phase: 'Failed',
      lastError: { reason: 'ValidateManifests', codes: ['ERR_CONFIGURATION_PROBLEM'] },
    });
    expect(item.status?.lastError?.message).not.toContain('nowhere');
  }, 60_000);
});
