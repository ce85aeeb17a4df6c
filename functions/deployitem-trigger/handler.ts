/**
 * deployitem-trigger: the Landscaper side of the deployer contract (./trigger.ts). Takes the
 * API-server source's DeployItem events (Reference mode) and its `dev.landscape.resync` (then every
 * DeployItem is looked at), and hands out jobs. Switched off by `enabled: false` where a real
 * Landscaper runs. Config: CONFIG_FILE (YAML) with LOG_LEVEL and DEPLOYITEM_TRIGGER_ENABLED
 * overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import pLimit from 'p-limit';
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import { EventTypes } from '../../shared/events/index.js';
import {
  createInstance,
  eventObjectRef,
  eventType,
  hostKubeConfig,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { createKubeClient } from '../../shared/kube/index.js';
import { FUNCTION_NAME, loadConfig, type TriggerConfig } from './config.js';
import { triggerJob, type TriggerDeps } from './trigger.js';

export { FUNCTION_NAME } from './config.js';

const RESYNC_CONCURRENCY = 8;

export function createTriggerInstance(
  opts: InstanceOptions = {},
): FunctionInstance<TriggerConfig, TriggerDeps> {
  return createInstance(
    {
      name: FUNCTION_NAME,
      loadConfig,
      setup: ({ env, log }) => ({
        client: createKubeClient(hostKubeConfig(env), { fieldManager: FUNCTION_NAME }),
        now: () => new Date(),
        newId: randomUUID,
        log,
      }),
    },
    opts,
  );
}

async function resyncAll(deps: TriggerDeps, config: TriggerConfig): Promise<void> {
  const limit = pLimit(RESYNC_CONCURRENCY);
  let next: string | undefined;
  do {
    const page = await deps.client.list<DeployItem>(GVK.DeployItem, undefined, {
      limit: 500,
      continue: next,
    });
    await Promise.all(
      page.items.map((item) =>
        limit(() =>
          triggerJob(deps, config, {
            namespace: item.metadata?.namespace ?? '',
            name: item.metadata?.name ?? '',
          }),
        ),
      ),
    );
    next = page.metadata?.continue || undefined;
  } while (next);
}

/** A CloudEvent handler over an instance (returns nothing; a throw means retry). */
export function triggerHandler(
  instance: FunctionInstance<TriggerConfig, TriggerDeps>,
): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    const r = await instance.ready();
    if (!r.ok || !r.config.enabled) return;
    const type = eventType(ce);
    if (type === EventTypes.resync) return resyncAll(r.deps, r.config);
    if (type.endsWith('.delete')) return;
    const ref = eventObjectRef(ce);
    if (!ref) {
      r.log.warn('event names no DeployItem; ignored', { type });
      return;
    }
    await triggerJob(r.deps, r.config, ref);
  };
}

export const instance = createTriggerInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deployitemTrigger = triggerHandler(instance);

ff.cloudEvent(FUNCTION_NAME, deployitemTrigger);
ff.cloudEvent('deployitemTrigger', deployitemTrigger);
