/**
 * The workload simulation as kubectl sees it under `npm start -- --no-functions --simulate-pods`:
 * a Deployment rolls out through a ReplicaSet (`rollout status` prints progress and ends
 * successfully), `set image` and `rollout undo` make and reuse revisions (`rollout history`),
 * `kubectl events` shows what the controllers, the scheduler and the kubelet would have recorded;
 * and the clear refusals of what a landscape without containers cannot do (logs, exec, cp) or
 * does not serve (`create quota`).
 */
import { ok, outcome, scaled, until, useLandscape } from './support.js';

/**
 * A rollout takes several simulation steps of this delay: long enough (scaled like every limit) for
 * `rollout status` to start and see it in progress on a loaded machine, so it prints progress lines.
 */
const STEP_MS = scaled(400);
const landscape = useLandscape(['--no-functions', '--simulate-pods', '--workload-delay', String(STEP_MS)]);

const kubectl = (...args: string[]): ReturnType<ReturnType<typeof landscape>['kubectl']> =>
  landscape().kubectl(args, { timeoutMs: scaled(60_000) });

describe('a Deployment through kubectl', () => {
  beforeAll(async () => {
    ok(await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3'));
  });

  it('rolls out: rollout status prints progress lines and ends successfully', async () => {
    const r = ok(await kubectl('rollout', 'status', 'deploy/web', '--timeout=60s'));
    expect(r.stdout).toMatch(
      /Waiting for deployment "web" rollout to finish: \d of 3 updated replicas are available/,
    );
    expect(r.stdout).toMatch(/deployment "web" successfully rolled out\n$/);
    const dep = await landscape().getJson(['deploy', 'web']);
    expect(dep.metadata.annotations['deployment.kubernetes.io/revision']).toBe('1');
    expect(dep.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(dep.status.conditions.map((c: any) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Available=True/MinimumReplicasAvailable',
      'Progressing=True/NewReplicaSetAvailable',
    ]);
  });

  it('owns a ReplicaSet with the pod-template-hash and revision, whose Pods are Running', async () => {
    const rs = (await landscape().getJson(['rs', '-l', 'app=web'])).items;
    expect(rs).toHaveLength(1);
    const hash = rs[0].metadata.labels['pod-template-hash'];
    expect(rs[0].metadata.name).toBe(`web-${hash}`);
    expect(rs[0].metadata.annotations['deployment.kubernetes.io/revision']).toBe('1');
    expect(rs[0].metadata.ownerReferences[0]).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      controller: true,
    });
    const pods = await until('3 running pods', async () => {
      const list = (await landscape().getJson(['pods', '-l', `pod-template-hash=${hash}`])).items;
      return list.length === 3 && list.every((p: any) => p.status.phase === 'Running') ? list : undefined;
    });
    expect(pods[0].metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', name: `web-${hash}` });
  });

  it('kubectl events shows ScalingReplicaSet, SuccessfulCreate, Scheduled and Started', async () => {
    const r = ok(await kubectl('events'));
    expect(r.stdout).toMatch(/ScalingReplicaSet\s+Deployment\/web\s+Scaled up replica set web-\w+ to 3/);
    expect(r.stdout).toMatch(/SuccessfulCreate\s+ReplicaSet\/web-\w+\s+Created pod: web-\w+-\w+/);
    expect(r.stdout).toMatch(
      /Scheduled\s+Pod\/web-\w+-\w+\s+Successfully assigned default\/web-\w+-\w+ to kwok-node/,
    );
    expect(r.stdout).toMatch(/Started\s+Pod\/web-\w+-\w+\s+Started container nginx/);
  });

  it('set image makes revision 2; rollout undo goes back to the first ReplicaSet as revision 3', async () => {
    ok(await kubectl('set', 'image', 'deploy/web', 'nginx=nginx:1.27'));
    ok(await kubectl('rollout', 'status', 'deploy/web', '--timeout=60s'));
    expect(ok(await kubectl('rollout', 'history', 'deploy/web')).stdout).toMatch(
      /^1\s+<none>\n2\s+<none>\n/m,
    );
    ok(await kubectl('rollout', 'undo', 'deploy/web'));
    ok(await kubectl('rollout', 'status', 'deploy/web', '--timeout=60s'));
    expect(ok(await kubectl('rollout', 'history', 'deploy/web')).stdout).toMatch(
      /^2\s+<none>\n3\s+<none>\n/m,
    );
    const rs = (await landscape().getJson(['rs', '-l', 'app=web'])).items;
    const byRevision = Object.fromEntries(
      rs.map((r: any) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r]),
    );
    expect(Object.keys(byRevision).sort()).toEqual(['2', '3']);
    expect(byRevision['3'].spec.template.spec.containers[0].image).toBe('nginx');
    expect(byRevision['3'].spec.replicas).toBe(3);
    expect(byRevision['2'].spec.replicas).toBe(0);
  });
});

describe('refusals', () => {
  let pod: string;
  beforeAll(async () => {
    pod = (await landscape().getJson(['pods', '-l', 'app=web'])).items[0].metadata.name;
  });

  it.each([
    ['logs', 'log'],
    ['exec', 'exec'],
  ])('kubectl %s says the landscape runs no containers', async (cmd, sub) => {
    const args = cmd === 'exec' ? ['exec', pod, '--', 'ls'] : ['logs', pod];
    const r = outcome(await kubectl(...args));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `Error from server (BadRequest): pod "${pod}" runs no containers: the embedded landscape simulates pods without a kubelet, so pods/${sub}`,
    );
  });

  it('kubectl cp says so too (it runs exec)', async () => {
    const r = outcome(await kubectl('cp', `${pod}:/etc/hosts`, '/tmp/never'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('runs no containers');
  });

  it('logs of a pod that is not there: NotFound', async () => {
    const r = outcome(await kubectl('logs', 'nope'));
    expect(r.stderr).toContain('(NotFound): pods "nope" not found');
  });

  it('create quota: the kind is not served (NotFound), not a protobuf error', async () => {
    const r = outcome(await kubectl('create', 'quota', 'q', '--hard=pods=1'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe(
      'error: failed to create quota: the server could not find the requested resource\n',
    );
  });
});

describe('metrics', () => {
  it('kubectl get --raw /metrics: the request counts and stored objects in the Prometheus format', async () => {
    const r = ok(await kubectl('get', '--raw', '/metrics'));
    expect(r.stdout).toContain('# TYPE apiserver_request_total counter');
    // the Deployment `kubectl create deployment` made above
    expect(r.stdout).toMatch(
      /^apiserver_request_total\{code="201",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="POST",version="v1"\} [1-9]\d*$/m,
    );
    expect(r.stdout).toMatch(/^apiserver_storage_objects\{resource="deployments\.apps"\} [1-9]\d*$/m);
  });
});
