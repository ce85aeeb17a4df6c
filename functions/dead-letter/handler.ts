/**
 * dead-letter: the dead-letter sink of the broker (`spec.delivery.deadLetterSink` of the Broker in
 * knative/runtime/). For every event it gets it writes one `warn` JSON line: the event's id, type,
 * source and subject, why it was dead-lettered (`knativeerrordest`, `knativeerrorcode`,
 * `knativeerrordata` decoded), the product's extensions, and the data's size and content type —
 * not the data, which may hold secrets (./describe.ts). Config: CONFIG_FILE (YAML) with LOG_LEVEL
 * and DEAD_LETTER_* overrides (./config.ts). It never emits and never throws: an error here would
 * only make the broker retry into the same sink.
 */
import * as ff from '@google-cloud/functions-framework';
import { FUNCTION_NAME } from './config.js';
import { createDeadLetterInstance, type DeadLetterInstance } from './instance.js';

export { FUNCTION_NAME } from './config.js';

/** A CloudEvent handler over an instance (returns nothing: 204). */
export function deadLetterHandler(instance: DeadLetterInstance): (ce: unknown) => Promise<void> {
  return async (ce: unknown): Promise<void> => {
    await instance.handle(ce);
  };
}

/** This process's instance (lazy: reads the environment and the config on the first event). */
export const instance: DeadLetterInstance = createDeadLetterInstance();

/** The handler under its camelCase name: the `handler` (entry point) of serverless.yml. */
export const deadLetter = deadLetterHandler(instance);

ff.cloudEvent(FUNCTION_NAME, deadLetter);
// Cloud Functions starts the framework with `--target deadLetter`: registered under that name too,
// the handler keeps the CloudEvent signature whatever signature type the deployment declares.
ff.cloudEvent('deadLetter', deadLetter);
