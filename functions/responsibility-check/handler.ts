/**
 * responsibility-check: for every DeployItem event of the API-server source (Reference mode), and
 * for every DeployItem on `dev.landscape.resync`, decides which configured deployers are
 * responsible (./check.ts) and emits `dev.landscape.deployitem.reconcile` for each to K_SINK.
 * Config: CONFIG_FILE (YAML) with LOG_LEVEL and K_SINK overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import { emitOrThrow, EventTypes, type FetchLike } from '../../shared/events/index.js';
import {
  createInstance,
  eventObjectRef,
  eventType,
  hostKubeConfig,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createKubeClient } from '../../shared/kube/index.js';
import { checkItem, type CheckDeps } from './check.js';
import { FUNCTION_NAME, loadConfig, type CheckConfig } from './config.js';

export { FUNCTION_NAME } from './config.js';

const RESYNC_CONCURRENCY = 8;

export function createCheckInstance(
  opts: InstanceOptions & { fetch?: FetchLike } = {},
): FunctionInstance<CheckConfig, CheckDeps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ config, env, log }) => ({
        client: createKubeClient(hostKubeConfig(env), { fieldManager: FUNCTION_NAME }),
        send: async (event): Promise<void> => {
          await emitOrThrow(event, {
            sink: config.sink,
            timeoutMs: config.emitTimeout,
            ...(opts.fetch ? { fetch: opts.fetch } : {}),
          });
        },
        newId: randomUUID,
        now: () => new Date(),
        log,
      }),
    },
    opts,
  );
}

async function resyncAll(deps: CheckDeps, config: CheckConfig): Promise<void> {
  const limit = pLimit(RESYNC_CONCURRENCY);
  let next: string | undefined;
  do {
    const page = await deps.client.listMetadata(GVK.DeployItem, undefined, { limit: 500, continue: next });
    await Promise.all(
      page.items.map((m) =>
        limit(() =>
          checkItem(deps, config, { namespace: m.metadata?.namespace ?? '', name: m.metadata?.name ?? '' }),
        ),
      ),
    );
    next = page.metadata?.continue || undefined;
  } while (next);
}

export function checkHandler(
  instance: FunctionInstance<CheckConfig, CheckDeps>,
): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    const r = await instance.ready();
    if (!r.ok) return;
    const type = eventType(ce);
    if (type === EventTypes.resync) return resyncAll(r.deps, r.config);
    if (type.endsWith('.delete')) return;
    const ref = eventObjectRef(ce);
    if (!ref) {
      r.log.warn('event names no DeployItem; ignored', { type });
      return;
    }
    await checkItem(r.deps, r.config, ref);
  };
}

export const instance = createCheckInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const responsibilityCheck = checkHandler(instance);

ff.cloudEvent(FUNCTION_NAME, responsibilityCheck);
ff.cloudEvent('responsibilityCheck', responsibilityCheck);
