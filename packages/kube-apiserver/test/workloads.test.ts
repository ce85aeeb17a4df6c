import type * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './support/cluster.js';

const ns = 'default';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function deployment(name: string, replicas: number): k8s.V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
}

describe('workload simulation (kwok-like)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ workloads: { delayMs: 30, createPods: true } });
  });
  afterAll(() => t.stop());

  const ready = (name: string, n: number) => async (): Promise<k8s.V1Deployment | undefined> => {
    const d = await t.apps.readNamespacedDeployment({ name, namespace: ns });
    return d.status?.readyReplicas === n && d.status.observedGeneration === d.metadata!.generation
      ? d
      : undefined;
  };

  it('makes a Deployment’s status follow spec.replicas, with Available and Progressing conditions', async () => {
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('sim', 3) });
    const d = await until('3 ready replicas', ready('sim', 3));
    expect(d.status).toMatchObject({ replicas: 3, availableReplicas: 3, updatedReplicas: 3 });
    expect(d.status!.conditions!.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Available=True',
      'Progressing=True',
    ]);
  });

  it('follows a scale-down through the scale subresource, and keeps one Running pod per replica', async () => {
    await t.apps.patchNamespacedDeploymentScale(
      { name: 'sim', namespace: ns, body: { spec: { replicas: 1 } } },
      (await import('@kubernetes/client-node')).setHeaderOptions(
        'Content-Type',
        'application/merge-patch+json',
      ),
    );
    await until('1 ready replica', ready('sim', 1));
    const pods = await until('one pod', async () => {
      const list = await t.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=sim' });
      return list.items.length === 1 ? list.items : undefined;
    });
    expect(pods[0].status).toMatchObject({ phase: 'Running' });
    // as on a cluster: the Deployment's ReplicaSet owns the pods, the Deployment owns the ReplicaSet
    const owner = pods[0].metadata!.ownerReferences![0];
    expect(owner).toMatchObject({ kind: 'ReplicaSet', controller: true });
    expect(owner.name).toBe(`sim-${pods[0].metadata!.labels!['pod-template-hash']}`);
    const rs = await t.apps.readNamespacedReplicaSet({ name: owner.name, namespace: ns });
    expect(rs.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'Deployment',
      name: 'sim',
      controller: true,
    });
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision']).toBe('1');
  });

  it('names StatefulSet pods by ordinal', async () => {
    await t.apps.createNamespacedStatefulSet({
      namespace: ns,
      body: { metadata: { name: 'db' }, spec: { ...deployment('db', 2).spec!, serviceName: 'db' } },
    });
    const names = await until('two pods', async () => {
      const list = await t.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=db' });
      return list.items.length === 2 ? list.items.map((p) => p.metadata!.name).sort() : undefined;
    });
    expect(names).toEqual(['db-0', 'db-1']);
  });

  it('leaves a Deployment annotated landscape.dev/simulate: "false" alone, and takes it back when the annotation goes', async () => {
    const body = deployment('hand', 2);
    body.metadata!.annotations = { 'landscape.dev/simulate': 'false' };
    await t.apps.createNamespacedDeployment({ namespace: ns, body });
    const created = await t.apps.readNamespacedDeployment({ name: 'hand', namespace: ns });
    const status = { replicas: 2, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 2 };
    await t.apps.replaceNamespacedDeploymentStatus({
      name: 'hand',
      namespace: ns,
      body: { ...created, status },
    });
    // a simulated Deployment created after the status write: the simulation's pass over it runs
    // after any pass it would have made over 'hand' (same delay, timers fire in order)
    await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('marker', 1) });
    await until('the marker simulated', ready('marker', 1));
    const hand = await t.apps.readNamespacedDeployment({ name: 'hand', namespace: ns });
    expect(hand.status).toEqual(status);
    const pods = await t.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=hand' });
    expect(pods.items).toEqual([]);

    await t.apps.patchNamespacedDeployment(
      {
        name: 'hand',
        namespace: ns,
        body: [{ op: 'remove', path: '/metadata/annotations/landscape.dev~1simulate' }],
      },
      (await import('@kubernetes/client-node')).setHeaderOptions(
        'Content-Type',
        'application/json-patch+json',
      ),
    );
    const back = await until('2 ready replicas once the annotation is gone', ready('hand', 2));
    expect(back.status).toMatchObject({ replicas: 2, availableReplicas: 2 });
  });

  it('removes a workload’s pods with it (garbage collection)', async () => {
    await t.apps.deleteNamespacedStatefulSet({ name: 'db', namespace: ns });
    await until('no db pods', async () => {
      const list = await t.core.listNamespacedPod({ namespace: ns, labelSelector: 'app=db' });
      return list.items.length === 0 ? true : undefined;
    });
  });
});

describe('without workload simulation', () => {
  it('leaves a Deployment’s status alone', async () => {
    const t = await startTestServer();
    try {
      await t.apps.createNamespacedDeployment({ namespace: ns, body: deployment('still', 2) });
      await new Promise((r) => setTimeout(r, 300));
      const d = await t.apps.readNamespacedDeployment({ name: 'still', namespace: ns });
      expect(d.status?.readyReplicas).toBeUndefined();
      const pods = await t.core.listNamespacedPod({ namespace: ns });
      expect(pods.items).toEqual([]);
    } finally {
      await t.stop();
    }
  });
});
