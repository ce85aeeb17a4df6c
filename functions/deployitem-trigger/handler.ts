/**
 * deployitem-trigger: the Landscaper side of the deployer contract (./trigger.ts). Takes the
 * API-server source's DeployItem events (Resource mode: decided from the object they carry;
 * Reference mode: read) and the resync (the ping of the deployers'
 * resync PingSource: every DeployItem from a full, paged list, decided without a read of its own),
 * and hands out jobs. Switched off by `enabled: false` where a real
 * Landscaper runs. Config: CONFIG_FILE (YAML) with LOG_LEVEL and DEPLOYITEM_TRIGGER_ENABLED
 * overrides (./config.ts).
 */
import { randomUUID } from 'node:crypto';
import * as ff from '@google-cloud/functions-framework';
import { BoundedSet, deployItemEventHandler, forEachFullDeployItem } from '../../shared/deployer/items.js';
import {
  createKubeInstance,
  type FunctionInstance,
  type InstanceOptions,
} from '../../shared/function/index.js';
import { FUNCTION_NAME, loadConfig, type TriggerConfig } from './config.js';
import { triggerEvent, triggerListed, type TriggerDeps } from './trigger.js';

export { FUNCTION_NAME } from './config.js';

export function createTriggerInstance(
  opts: InstanceOptions = {},
): FunctionInstance<TriggerConfig, TriggerDeps> {
  return createKubeInstance(
    FUNCTION_NAME,
    loadConfig,
    () => ({
      newId: randomUUID,
      contexts: new Set<string>(),
      superseded: new BoundedSet(),
    }),
    opts,
  );
}

/** A CloudEvent handler over an instance (returns nothing; a throw means retry). */
export function triggerHandler(
  instance: FunctionInstance<TriggerConfig, TriggerDeps>,
): (ce: unknown) => Promise<void> {
  return deployItemEventHandler(
    instance,
    (r, ref, item) => triggerEvent(r.deps, r.config, ref, item),
    (r) => forEachFullDeployItem(r.deps.client, (item) => triggerListed(r.deps, r.config, item)),
    (r) => r.config.enabled,
  );
}

export const instance = createTriggerInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deployitemTrigger = triggerHandler(instance);

ff.cloudEvent(FUNCTION_NAME, deployitemTrigger);
ff.cloudEvent('deployitemTrigger', deployitemTrigger);
