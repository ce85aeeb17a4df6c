import { heartbeatLiveness } from './liveness.js';
import type { PodReads } from '../function/pod.js';
import type { LockOwner, LockOwnerEnv } from './owner.js';
import { instanceId, isLivenessKind, livenessFor, lockOwner } from './owner.js';

const rand = (): string => 'r4nd0m';

describe('lockOwner', () => {
  const table: [string, LockOwnerEnv, LockOwner][] = [
    [
      'POD_NAME + POD_NAMESPACE → the Pod, pod liveness',
      { POD_NAME: 'mock-7f9-abc', POD_NAMESPACE: 'ls-system' },
      { owner: 'mock-7f9-abc', liveness: 'pod', podNamespace: 'ls-system' },
    ],
    [
      'POD_NAME alone → the Pod name, heartbeat',
      { POD_NAME: 'mock-7f9-abc' },
      { owner: 'mock-7f9-abc', liveness: 'heartbeat' },
    ],
    [
      'nothing (Cloud Functions) → random id, heartbeat',
      {},
      { owner: 'instance-r4nd0m', liveness: 'heartbeat' },
    ],
    [
      'K_SERVICE names the instance',
      { K_SERVICE: 'deployer-mock' },
      { owner: 'deployer-mock-r4nd0m', liveness: 'heartbeat' },
    ],
    [
      'FUNCTION_TARGET names the instance',
      { FUNCTION_TARGET: 'mock' },
      { owner: 'mock-r4nd0m', liveness: 'heartbeat' },
    ],
    [
      'blank POD_NAME counts as unset',
      { POD_NAME: ' ', POD_NAMESPACE: 'x' },
      { owner: 'instance-r4nd0m', liveness: 'heartbeat' },
    ],
  ];
  it.each(table)('%s', (_name, env, want) => {
    const got = lockOwner(env, rand);
    expect(got).toEqual(want);
    expect(isLivenessKind(got.liveness)).toBe(true);
  });

  // no downward API on a default Knative install: the hostname and the namespace file
  const reads = (ns?: string): PodReads => ({
    hostname: () => 'mock-00001-abc',
    readNamespaceFile: () => ns,
  });
  it.each<[string, LockOwnerEnv, PodReads, LockOwner]>([
    [
      'in a Pod: hostname + namespace file → pod liveness',
      { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      reads('ls-system\n'),
      { owner: 'mock-00001-abc', liveness: 'pod', podNamespace: 'ls-system' },
    ],
    [
      'in a Pod without a token: the hostname, heartbeat',
      { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      reads(),
      { owner: 'mock-00001-abc', liveness: 'heartbeat' },
    ],
    [
      'not in a Pod: the hostname is not read',
      {},
      reads('ls'),
      { owner: 'instance-r4nd0m', liveness: 'heartbeat' },
    ],
  ])('%s', (_name, env, r, want) => {
    expect(lockOwner(env, rand, r)).toEqual(want);
  });

  it('the random id is made once per process', () => {
    const a = lockOwner({});
    const b = lockOwner({});
    expect(a.owner).toBe(b.owner);
    expect(a.owner).toBe(`instance-${instanceId()}`);
    expect(a.owner).toMatch(/^instance-[0-9a-f-]{36}$/);
  });
});

describe('livenessFor', () => {
  const client = { getMetadata: () => Promise.reject(new Error('unused')) };

  it('pod owner → pod liveness in POD_NAMESPACE (no Redis needed, no hold)', async () => {
    const asked: string[] = [];
    const pods = {
      getMetadata: (_g: unknown, ns: string | undefined, name: string): Promise<any> => {
        asked.push(`${ns}/${name}`);
        return Promise.resolve({ metadata: { name } });
      },
    };
    const l = livenessFor({ owner: 'p', liveness: 'pod', podNamespace: 'ls-system' }, { client: pods });
    expect('hold' in l).toBe(false);
    expect(await l.isAlive('other-pod')).toBe(true);
    expect(asked).toEqual(['ls-system/other-pod']);
  });

  it('heartbeat owner without Redis → a clear error', () => {
    expect(() => livenessFor({ owner: 'i', liveness: 'heartbeat' }, { client })).toThrow(/needs Redis/);
  });

  it('heartbeat owner with Redis → heartbeat liveness', () => {
    const redis = { get: () => Promise.reject(new Error('unused')), close: () => Promise.resolve() };
    const l = livenessFor({ owner: 'i', liveness: 'heartbeat' }, { client, redis });
    expect(typeof l.hold).toBe('function');
    expect(Object.keys(l).sort()).toEqual(Object.keys(heartbeatLiveness(redis)).sort());
  });
});
