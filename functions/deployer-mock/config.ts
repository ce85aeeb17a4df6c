/**
 * Configuration of the mock deployer: the configuration every deployer function shares
 * (shared/deployer/host/function.ts: identity, version, lockRetryDelay, continuousReconcile,
 * workers, redisUrl, logLevel). Every problem is listed.
 */
export { loadDeployerConfig as loadConfig } from '../../shared/deployer/host/function.js';
export type { DeployerConfig } from '../../shared/deployer/host/function.js';

export const FUNCTION_NAME = 'deployer-mock';
