/**
 * requeue-tick: the ticking function of DESIGN "Requeue, never wait". Triggered by
 * `dev.knative.sources.ping` (every minute on Knative; every second in the embedded landscape),
 * it pops the due items of every target and emits one `dev.landscape.requeue` event each to
 * K_SINK (with K_SINK_TOKEN as a bearer token when set). Config: CONFIG_FILE (YAML) with
 * REDIS_URL, K_SINK, K_SINK_TOKEN, REQUEUE_* overrides (./config.ts).
 * The event is only a hint to tick; its content is not read.
 */
import * as ff from '@google-cloud/functions-framework';
import { FUNCTION_NAME } from './config.js';
import { createTickInstance, type TickInstance } from './instance.js';

export { FUNCTION_NAME } from './config.js';

/** A CloudEvent handler over an instance (returns nothing: 204; a throw means retry). */
export function tickHandler(instance: TickInstance): (ce: unknown) => Promise<void> {
  return async (): Promise<void> => {
    await instance.handle();
  };
}

/** This process's instance (lazy: reads the environment and connects on the first event). */
export const instance: TickInstance = createTickInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const requeueTick = tickHandler(instance);

ff.cloudEvent(FUNCTION_NAME, requeueTick);
// Cloud Functions starts the framework with `--target requeueTick`: registered under that name too,
// the handler keeps the CloudEvent signature whatever signature type the deployment declares.
ff.cloudEvent('requeueTick', requeueTick);
