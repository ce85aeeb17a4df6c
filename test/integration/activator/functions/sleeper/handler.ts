/**
 * A test function for the activator: sleeps `data.ms`, then answers (204). With `data.crashOnce`
 * (a file path) it exits the process on the first delivery (after creating the file), so the
 * activator has to deliver the event again to a new replica. With `data.stackTo` (a file path) it
 * writes the stack of an Error made here to that file first (the code cache's source-mapped stacks).
 * With the extension attribute `echoto` (a file path) it writes the event's data there as JSON (a
 * body's charset decoded by the framework, ../../../bundle/cold.test.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import * as ff from '@google-cloud/functions-framework';

interface Data {
  ms?: number;
  crashOnce?: string;
  stackTo?: string;
}

function stackHere(): string {
  return new Error('stack probe').stack ?? '';
}

ff.cloudEvent('sleeper', async (ce: unknown) => {
  const event = ce as { data?: Data; echoto?: unknown };
  if (typeof event.echoto === 'string') writeFileSync(event.echoto, JSON.stringify(event.data));
  const data = typeof event.data === 'object' && event.data !== null ? event.data : {};
  if (data.stackTo) writeFileSync(data.stackTo, stackHere());
  if (data.crashOnce && !existsSync(data.crashOnce)) {
    writeFileSync(data.crashOnce, String(process.pid));
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, data.ms ?? 0));
});
