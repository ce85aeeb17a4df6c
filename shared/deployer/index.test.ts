import * as api from './index.js';

describe('shared/deployer index', () => {
  it.each([
    'DeployerError',
    'ProgressingTimeoutError',
    'decideJob',
    'mustWork',
    'startJob',
    'decideResponsibility',
    'responsibilityKeysFromMetadata',
    'needsFullRead',
    'applyStepResult',
    'applyError',
    'decideOperation',
    'progressingDeadline',
    'checkTimeout',
    'decidePickupTimeout',
    'aggregateHookResults',
    'registerHook',
    'runHooks',
    'continuousReconcileHookSetup',
    'startContinuousJob',
    'statusChanged',
    'parseGoDuration',
  ])('exports %s', (name) => {
    expect(typeof (api as Record<string, unknown>)[name]).toBe('function');
  });
});
