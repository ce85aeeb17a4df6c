import type { DeployItem, DeployItemPhase } from '../../shared/api/landscaper.js';
import { DeployerError } from '../../shared/deployer/types.js';
import { exportSecretName, mockPhase, parseMockConfig, type MockProviderConfig } from './plugin.js';

const item = (config: unknown): DeployItem =>
  ({
    metadata: { name: 'a', namespace: 'n', uid: 'u-1' },
    spec: { type: 'landscaper.gardener.cloud/mock', config },
  }) as DeployItem;

describe('mockPhase (upstream order: initialPhase while empty/Init, else Succeeded; phase overrides)', () => {
  it.each<[MockProviderConfig, DeployItemPhase | undefined, string]>([
    [{}, undefined, 'Succeeded'],
    [{}, 'Init', 'Succeeded'],
    [{}, 'Progressing', 'Succeeded'],
    [{ initialPhase: 'Progressing' }, undefined, 'Progressing'],
    [{ initialPhase: 'Progressing' }, 'Init', 'Progressing'],
    [{ initialPhase: 'Failed' }, 'Progressing', 'Progressing'],
    [{ phase: 'Failed' }, 'Init', 'Failed'],
    [{ phase: 'Succeeded', initialPhase: 'Progressing' }, 'Init', 'Succeeded'],
    [{ phase: 'Init' }, 'Progressing', 'Init'],
  ])('%j from %s → %s', (config, current, want) => {
    expect(mockPhase(config, current)).toBe(want);
  });
});

describe('parseMockConfig', () => {
  it('reads every field', () => {
    expect(
      parseMockConfig(
        item({
          apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
          kind: 'ProviderConfiguration',
          phase: 'Succeeded',
          providerStatus: { key: 'v' },
          export: { a: [1] },
          continuousReconcile: { every: '1h' },
        }),
      ),
    ).toEqual({
      apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
      kind: 'ProviderConfiguration',
      phase: 'Succeeded',
      providerStatus: { key: 'v' },
      export: { a: [1] },
      continuousReconcile: { every: '1h' },
    });
  });

  it.each([
    [{ phase: 'Done' }, 'phase: Invalid option'],
    [
      { apiVersion: 'other/v1' },
      'apiVersion: Invalid input: expected "mock.deployer.landscaper.gardener.cloud/v1alpha1"',
    ],
    [{ providerStatus: 'x' }, 'providerStatus: Invalid input: expected record'],
  ])('%j is a configuration problem naming %s', (config, problem) => {
    let error: unknown;
    try {
      parseMockConfig(item(config));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DeployerError);
    expect(error).toMatchObject({
      reason: 'ProviderConfigurationInvalid',
      codes: ['ERR_CONFIGURATION_PROBLEM'],
    });
    expect((error as Error).message).toContain(problem);
  });

  it('names the export Secret after the item uid (idempotent across retries)', () => {
    expect(exportSecretName(item({}))).toBe('mock-export-u-1');
  });
});
