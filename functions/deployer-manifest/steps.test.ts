import type { DeployItem } from '../../shared/api/landscaper.js';
import { DeployerError } from '../../shared/deployer/types.js';
import { appliedAlready, parseConfigOrThrow } from './steps.js';

describe('appliedAlready (cheap re-entry)', () => {
  it.each([
    [{ appliedJobID: 'j1', appliedGeneration: 2 }, { jobID: 'j1', generation: 2 }, true],
    [{ appliedJobID: 'j1', appliedGeneration: 2 }, { jobID: 'j2', generation: 2 }, false],
    [{ appliedJobID: 'j1', appliedGeneration: 2 }, { jobID: 'j1', generation: 3 }, false],
    [{}, { jobID: '', generation: 0 }, false],
  ])('%j for %j → %s', (applied, job, want) => {
    expect(appliedAlready({ managedResources: [], orphanedResources: [], ...applied }, job)).toBe(want);
  });
});

describe('parseConfigOrThrow', () => {
  const item = (config: unknown): DeployItem =>
    ({
      metadata: { name: 'x' },
      spec: { type: 'landscaper.gardener.cloud/kubernetes-manifest', config },
    }) as DeployItem;

  it('an invalid configuration is an unrecoverable configuration problem naming every problem', () => {
    let error: unknown;
    try {
      parseConfigOrThrow(
        item({
          apiVersion: 'manifest.deployer.landscaper.gardener.cloud/v1alpha2',
          updateStrategy: 'x',
          manifests: [{}],
        }),
      );
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DeployerError);
    expect(error).toMatchObject({
      operation: 'InitManifestOperation',
      reason: 'ValidateProviderConfiguration',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
    });
    expect((error as Error).message).toContain('updateStrategy');
    expect((error as Error).message).toContain('manifests[0]: manifest: must be defined');
  });

  it('a missing configuration is one too', () => {
    expect(() => parseConfigOrThrow(item(undefined))).toThrow(
      'invalid manifest provider configuration: (root): expected an object',
    );
  });
});
