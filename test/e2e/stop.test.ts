/**
 * `npm start` stops in order on Ctrl-C (SIGINT to its whole process group, as a terminal sends
 * it): the sources first, then the functions — a request in flight is finished (its replica
 * closes gracefully and its write reaches the API server) — then Redis and the API servers.
 * The output of the stop has no stack trace and no "replica exited; it will be replaced" line,
 * and the exit code is 0. The landscape runs its own redis-server here (no REDIS_URL), so a
 * Redis that went first would show as the in-flight request failing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled, startLandscape, startTimeout, stopTimeout, until, type Landscape } from './support.js';

const NS = 'landscape-system';
/** A stack frame as node prints it (`    at fn (file:line:col)`). */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

let l: Landscape;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'landscape-stop-'));
  l = await startLandscape(
    [
      '--knative-dir',
      'knative',
      '--knative-dir',
      'test/e2e/runtime/knative',
      '--functions-dir',
      'functions',
      '--functions-dir',
      'test/e2e/runtime/functions',
      '--no-default-clusters',
      '--status-interval',
      '0',
      // the functions' lines on stdout too: none of them may show an error or a stack on Ctrl-C
      '--function-logs',
      '--data-dir',
      dataDir,
    ],
    { functions: true, env: { REDIS_URL: '' } },
  );
}, startTimeout());

afterAll(async () => {
  await l?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, stopTimeout());

/** Every file under the data dir, concatenated (the persisted writes of the clusters). */
function persisted(): string {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else out.push(readFileSync(path).toString('latin1'));
    }
  };
  walk(dataDir);
  return out.join('\n');
}

it(
  'Ctrl-C: the request in flight is finished, no stack trace, no "will be replaced", exit 0',
  async () => {
    await l.create(
      'slow.yaml',
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: slow-1
  namespace: default
  labels: {e2e.landscape.dev/record: "true"}
data: {delayMs: "3000"}
`,
    );
    // the recorder has the event (its replica's Pod exists and it logged the request)
    await until(
      'a recorder replica with the event in flight',
      async () => {
        const pods = (await l.getJson(['pods', '-n', NS, '-l', 'serving.knative.dev/service=recorder'])) as {
          items: unknown[];
        };
        const status = await l.cli(['status']);
        // FUNCTION REPLICAS IN-FLIGHT ...: one replica, one request in flight
        return pods.items.length > 0 && /^recorder\s+1\s+1\s/m.test(status.stdout) ? true : undefined;
      },
      { timeoutMs: 40_000, context: () => l.output().slice(-3000) },
    );
    const before = l.output().length;
    const stopped = await l.stop();
    const during = stopped.output.slice(before);
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expect(during).toContain('SIGINT: stopping the landscape');
    expect(during).not.toMatch(/will be replaced/);
    expect(during.match(STACK_FRAME)?.[0]).toBeUndefined();
    // nor one inside a JSON log line (a function's or the landscape's), nor any error line
    expect(during.match(/^.*"stack":.*$/m)?.[0]).toBeUndefined();
    expect(during.match(/^.*"level":"error".*$/m)?.[0]).toBeUndefined();
    // the in-flight request was finished: its write (the annotation) reached the API server
    expect(persisted()).toMatch(/e2e\.landscape\.dev\/handled-by/);
  },
  scaled(90_000),
);
