/**
 * kubectl against the more complete API: cascading deletes (`--cascade=background|foreground|orphan`),
 * server-side dry run, field selectors of Events and Pods, and workload simulation under `kubectl scale`.
 */
import { scaledSeconds, until, useLandscape } from './support.js';

const landscape = useLandscape();

function owned(name: string, owner: { name: string; uid: string }, block = false): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid, blockOwnerDeletion: block },
      ],
    },
  });
}

async function ownerWithDependent(prefix: string): Promise<{ owner: string; dependent: string }> {
  const l = landscape();
  const owner = `${prefix}-owner`;
  await l.kubectlOk(['create', 'configmap', owner]);
  const uid = (await l.getJson(['configmap', owner])).metadata.uid as string;
  const dependent = `${prefix}-dep`;
  await l.kubectlOk(['create', '-f', '-'], { input: owned(dependent, { name: owner, uid }) });
  return { owner, dependent };
}

async function exists(name: string): Promise<boolean> {
  const r = await landscape().kubectl(['get', 'configmap', name, '--ignore-not-found', '-o', 'name']);
  return r.stdout.trim() !== '';
}

describe('kubectl delete --cascade', () => {
  it('background (the default) removes the dependent after the owner', async () => {
    const { owner, dependent } = await ownerWithDependent('bg');
    await landscape().kubectlOk(['delete', 'configmap', owner]);
    await until(`${dependent} to be gone`, async () => ((await exists(dependent)) ? undefined : true), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  });

  it('orphan keeps the dependent, without its owner reference', async () => {
    const { owner, dependent } = await ownerWithDependent('orph');
    await landscape().kubectlOk(['delete', 'configmap', owner, '--cascade=orphan']);
    expect(await exists(owner)).toBe(false);
    const kept = await landscape().getJson(['configmap', dependent]);
    expect(kept.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('foreground removes the dependent before kubectl returns', async () => {
    const { owner, dependent } = await ownerWithDependent('fg');
    await landscape().kubectlOk(['delete', 'configmap', owner, '--cascade=foreground']);
    expect(await exists(owner)).toBe(false);
    expect(await exists(dependent)).toBe(false);
  });
});

describe('server-side dry run', () => {
  it('validates and answers without storing', async () => {
    const l = landscape();
    const r = await l.kubectlOk([
      'create',
      'configmap',
      'dry',
      '--from-literal=a=b',
      '--dry-run=server',
      '-o',
      'json',
    ]);
    expect(JSON.parse(r.stdout).data).toEqual({ a: 'b' });
    expect(await exists('dry')).toBe(false);
  });

  it('still refuses what a real create would refuse', async () => {
    const r = await landscape().kubectl(['create', 'configmap', 'BAD_NAME', '--dry-run=server']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ConfigMap "BAD_NAME" is invalid: metadata.name: Invalid value: "BAD_NAME"');
  });
});

describe('field selectors', () => {
  beforeAll(async () => {
    const event = (name: string, target: string, type: string): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name },
        involvedObject: { kind: 'Deployment', name: target, namespace: 'default' },
        reason: 'Scaled',
        type,
        message: `${target} scaled`,
      });
    await landscape().kubectlOk(['create', '-f', '-'], { input: event('fs-ev-1', 'web', 'Normal') });
    await landscape().kubectlOk(['create', '-f', '-'], { input: event('fs-ev-2', 'db', 'Warning') });
  });

  it('kubectl get events --field-selector involvedObject.name=web', async () => {
    const r = await landscape().kubectlOk([
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=web',
      '-o',
      'name',
    ]);
    expect(r.stdout.trim().split('\n')).toEqual(['event/fs-ev-1']);
  });

  it('kubectl get events --field-selector type=Warning', async () => {
    const r = await landscape().kubectlOk([
      'get',
      'events',
      '--field-selector',
      'type=Warning',
      '-o',
      'name',
    ]);
    expect(r.stdout.trim().split('\n')).toEqual(['event/fs-ev-2']);
  });
});

describe('workload simulation', () => {
  it('kubectl scale is followed by the status (READY n/n)', async () => {
    const l = landscape();
    await l.kubectlOk(['create', 'deployment', 'sim-web', '--image=nginx', '--replicas=1']);
    await l.kubectlOk(['scale', 'deployment', 'sim-web', '--replicas=4']);
    await l.kubectlOk([
      'wait',
      'deployment/sim-web',
      '--for=jsonpath={.status.readyReplicas}=4',
      `--timeout=${scaledSeconds(20_000)}`,
    ]);
    await l.kubectlOk([
      'wait',
      'deployment/sim-web',
      '--for=condition=Available',
      `--timeout=${scaledSeconds(20_000)}`,
    ]);
  });
});
