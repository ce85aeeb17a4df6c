/**
 * responsibility-check: for every DeployItem event of the API-server source (Resource mode: from
 * the object it carries, which the reconcile events carry on; Reference mode: read), and
 * for every DeployItem on a resync (the ping of the deployers' resync PingSource: a metadata-only
 * list, paged, decided from the listed annotations), decides which configured deployers are
 * responsible (./check.ts) and emits `dev.landscape.deployitem.reconcile` for each to K_SINK.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL, K_SINK and K_SINK_TOKEN overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import { BoundedSet, deployItemEventHandler } from '../../shared/deployer/items.js';
import { emitOrThrow, type FetchLike } from '../../shared/events/index.js';
import {
  createKubeInstance,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { checkEvent, resyncAll, type CheckDeps } from './check.js';
import { FUNCTION_NAME, loadConfig, type CheckConfig } from './config.js';

export { FUNCTION_NAME } from './config.js';

export function createCheckInstance(
  opts: InstanceOptions & { fetch?: FetchLike } = {},
): FunctionInstance<CheckConfig, CheckDeps> {
  return createKubeInstance(
    FUNCTION_NAME,
    loadConfig,
    ({ config }) => ({
      send: async (event): Promise<void> => {
        await emitOrThrow(event, {
          sink: config.sink,
          timeoutMs: config.emitTimeout,
          ...(config.sinkToken ? { token: config.sinkToken } : {}),
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        });
      },
      newId: randomUUID,
      sentJobs: new BoundedSet(),
    }),
    opts,
  );
}

export function checkHandler(
  instance: FunctionInstance<CheckConfig, CheckDeps>,
): (ce: unknown) => Promise<void> {
  return deployItemEventHandler(
    instance,
    (r, ref, item) => checkEvent(r.deps, r.config, ref, item),
    (r) => resyncAll(r.deps, r.config),
  );
}

export const instance = createCheckInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const responsibilityCheck = checkHandler(instance);

ff.cloudEvent(FUNCTION_NAME, responsibilityCheck);
ff.cloudEvent('responsibilityCheck', responsibilityCheck);
