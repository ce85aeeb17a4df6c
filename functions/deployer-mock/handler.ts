/**
 * deployer-mock: the mock deployer (`landscaper.gardener.cloud/mock`, ./plugin.ts) under the
 * deployer contract host (shared/deployer/host): `dev.landscape.deployitem.reconcile` events
 * with `deployertype: mock` from the responsibility check, and its own `dev.landscape.requeue`
 * events. Config: CONFIG_FILE (YAML) with REDIS_URL and LOG_LEVEL overrides (./config.ts).
 */
import * as ff from '@google-cloud/functions-framework';
import { createDeployerInstance, deployerHandler } from '../../shared/deployer/host/function.js';
import { FUNCTION_NAME } from './config.js';
import { createMockDeployer } from './plugin.js';

export { FUNCTION_NAME } from './config.js';

export const plugin = createMockDeployer();

/** This process's instance (lazy: reads the environment and the config on the first event). */
export const instance = createDeployerInstance(FUNCTION_NAME, plugin);

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deployerMock = deployerHandler(FUNCTION_NAME, plugin, instance);

ff.cloudEvent(FUNCTION_NAME, deployerMock);
ff.cloudEvent('deployerMock', deployerMock);
