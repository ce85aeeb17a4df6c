import {
  DEPLOY_ITEM_PHASES,
  FINAL_DEPLOY_ITEM_PHASES,
  GVK,
  gvkFor,
  gvkForKind,
  isDeployItemPhase,
  isErrorCode,
  isFinalDeployItemPhase,
  isKnownKind,
  isMachinePhase,
  isReplicaStatus,
  isUnrecoverableErrorCode,
  KNOWN_KINDS,
  LandscaperAnnotations,
  objectKey,
  REPLICA_STATUSES,
} from './index.js';

describe('GVK table', () => {
  it('keys are the kinds and apiVersions are derived from group/version', () => {
    for (const [key, g] of Object.entries(GVK)) {
      expect(g.kind).toBe(key);
      expect(g.apiVersion).toBe(g.group === '' ? g.version : `${g.group}/${g.version}`);
      expect(g.plural).toMatch(/^[a-z]+$/);
    }
  });

  it('has the scopes the URLs need', () => {
    expect(GVK.DeployItem).toEqual({
      group: 'landscaper.gardener.cloud',
      version: 'v1alpha1',
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'DeployItem',
      plural: 'deployitems',
      namespaced: true,
    });
    expect(
      [GVK.Seed, GVK.CloudProfile, GVK.Project, GVK.Cluster, GVK.Namespace, GVK.Node].map(
        (g) => g.namespaced,
      ),
    ).toEqual([false, false, false, false, false, false]);
    expect(GVK.Pod.apiVersion).toBe('v1');
    expect(GVK.EndpointSlice.apiVersion).toBe('discovery.k8s.io/v1');
  });

  it('looks kinds up', () => {
    expect(gvkFor('coordination.k8s.io/v1', 'Lease')).toBe(GVK.Lease);
    expect(gvkFor('v1', 'Lease')).toBeUndefined();
    expect(gvkForKind('DeployItem')).toBe(GVK.DeployItem);
    expect(gvkForKind('toString')).toBeUndefined();
    expect(isKnownKind('Machine')).toBe(true);
    expect(isKnownKind('Nope')).toBe(false);
    expect(KNOWN_KINDS).toContain('ManagedSeedSet');
  });
});

describe('closed sets', () => {
  it('DeployItem phases', () => {
    expect(DEPLOY_ITEM_PHASES).toHaveLength(8);
    expect(DEPLOY_ITEM_PHASES.every(isDeployItemPhase)).toBe(true);
    expect(isDeployItemPhase('succeeded')).toBe(false);
    expect(FINAL_DEPLOY_ITEM_PHASES.every(isFinalDeployItemPhase)).toBe(true);
    expect(isFinalDeployItemPhase('Init')).toBe(false);
  });

  it('error codes', () => {
    expect(isErrorCode('ERR_TIMEOUT')).toBe(true);
    expect(isUnrecoverableErrorCode('ERR_TIMEOUT')).toBe(true);
    expect(isUnrecoverableErrorCode('ERR_UNFINISHED')).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
  });

  it('replica statuses are in scale-in order', () => {
    expect(REPLICA_STATUSES.indexOf('Unknown')).toBe(0);
    expect(REPLICA_STATUSES.indexOf('ManagedSeedRegistered')).toBe(8);
    expect(isReplicaStatus('ShootDeleting')).toBe(true);
  });

  it('machine phases', () => {
    expect(isMachinePhase('Running')).toBe(true);
    expect(isMachinePhase('running')).toBe(false);
  });
});

describe('constants and helpers', () => {
  it('annotations as in the spec', () => {
    expect(LandscaperAnnotations.deployerType).toBe('landscaper.gardener.cloud/deployer-type');
    expect(LandscaperAnnotations.deployerTargetName).toBe('landscaper.gardener.cloud/deployer-target-name');
    expect(LandscaperAnnotations.operation).toBe('landscaper.gardener.cloud/operation');
  });

  it('objectKey', () => {
    expect(objectKey({ namespace: 'ls-system', name: 'x' })).toBe('ls-system/x');
    expect(objectKey({ name: 'seed-a' })).toBe('seed-a');
    expect(objectKey(undefined)).toBe('');
  });
});
