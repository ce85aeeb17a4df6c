/**
 * No event is acknowledged before it is handled (issue 14's acceptance): a function started with a
 * broken config file answers 500 to its events, the broker retries and dead-letters them, and
 * after the file is fixed `npm run dlq -- replay --all` brings every item to its end state.
 *
 * 1. `npm start -- --config-dir C` where C is a copy of config/ with deployer-mock.yaml broken
 *    (a `lockRetryDelay` that is no duration), and `--resync-interval 1h`, so the only way back
 *    for an event is the dead-letter queue (the resync PingSources would repair the items too).
 * 2. Mock DeployItems are created with kubectl: their reconcile events reach deployer-mock, which
 *    answers 500 every time (shared/function createInstance: FunctionNotReadyError); the broker
 *    retries (Trigger delivery: 5, exponential) and dead-letters them: `npm run dlq -- list`
 *    shows one letter per item with code 500, and the items are not Succeeded.
 * 3. deployer-mock.yaml is fixed in place (as the kubelet updates a mounted ConfigMap); `npm run
 *    dlq -- replay --all` sends the letters again; the function reads the file again (at most
 *    every 5 s while it was bad) and every item ends Succeeded; the queue is empty.
 * Waits on conditions only.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REPO_ROOT,
  run,
  scaled,
  startLandscape,
  startTimeout,
  stopTimeout,
  until as poll,
  useTestTimeout,
  type CommandResult,
  type Landscape,
} from './support.js';

const ITEMS = ['dlq-a', 'dlq-b', 'dlq-c'];
const RECONCILE = 'dev.landscape.deployitem.reconcile';

interface Letter {
  id: string;
  trigger?: string;
  extensions?: { knativeerrorcode?: string | number };
  event?: { type?: string; name?: string; namespace?: string; [k: string]: unknown };
}

let l: Landscape;
let configDir: string;
let good: string;

useTestTimeout();

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'dlq-replay-config-'));
  cpSync(join(REPO_ROOT, 'config'), configDir, { recursive: true });
  good = readFileSync(join(configDir, 'deployer-mock.yaml'), 'utf8');
  const broken = good.replace(/^lockRetryDelay: .*$/m, 'lockRetryDelay: soon');
  expect(broken).not.toBe(good);
  writeFileSync(join(configDir, 'deployer-mock.yaml'), broken);
  l = await startLandscape(
    [
      '--knative-dir',
      'knative/runtime',
      '--knative-dir',
      'knative/deployers',
      '--config-dir',
      configDir,
      '--resync-interval',
      '1h',
      '--status-interval',
      '0',
      '--no-function-logs',
    ],
    { functions: true },
  );
}, startTimeout());

afterAll(async () => {
  const stopped = await l?.stop();
  rmSync(configDir, { recursive: true, force: true });
  expect(stopped?.code).toBe(0);
}, stopTimeout());

function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return poll(what, probe, { timeoutMs, intervalMs: 500, context: () => l.output().slice(-4000) });
}

/** `npm run dlq -- <args>` against this landscape's state directory. */
function dlq(args: string[]): Promise<CommandResult> {
  const where = ['--dir', join(l.stateDir, 'dlq'), '--state-file', join(l.stateDir, 'broker.json')];
  return run('npm', ['run', '--silent', 'dlq', '--', ...args, ...where], { cwd: REPO_ROOT });
}

async function letters(): Promise<Letter[]> {
  const r = await dlq(['list', '--json']);
  if (r.code !== 0) throw new Error(`${r.command}: ${r.code}\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout || '[]') as Letter[];
}

/** The attribute of a dead-lettered event (the letter keeps the event's attributes). */
const itemOf = (letter: Letter): string | undefined =>
  typeof letter.event?.name === 'string' ? letter.event.name : undefined;

async function phase(name: string): Promise<string | undefined> {
  const item = (await l.getJson(['deployitem', name, '-n', 'default'])) as { status?: { phase?: string } };
  return item.status?.phase;
}

it(
  'a broken config: events answered 500 end in the DLQ; fixed and replayed, every item Succeeded',
  async () => {
    for (const name of ITEMS) {
      await l.create(
        `${name}.yaml`,
        `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DeployItem
metadata: {name: ${name}, namespace: default}
spec:
  type: landscaper.gardener.cloud/mock
  config:
    apiVersion: mock.deployer.landscaper.gardener.cloud/v1alpha1
    kind: ProviderConfiguration
    providerStatus: {answer: "42"}
`,
      );
    }

    // every item's reconcile event was answered 500 until the broker gave up on it
    const dead = await until('a dead letter of each item’s reconcile event', async () => {
      const all = (await letters()).filter((x) => x.event?.type === RECONCILE);
      const names = new Set(all.map(itemOf));
      return ITEMS.every((n) => names.has(n)) ? all : undefined;
    });
    expect(new Set(dead.map((x) => String(x.extensions?.knativeerrorcode)))).toEqual(new Set(['500']));
    for (const name of ITEMS) expect(await phase(name)).not.toBe('Succeeded');
    // the function's log: the problem once per replica, then a short JSON line per event
    // the function's log file gets its lines a moment after the answers they report (local/activator/logs.ts)
    const log = await until('the answered-500 lines in the log', () => {
      const text = readFileSync(join(l.stateDir, 'logs', 'deployer-mock.log'), 'utf8');
      return Promise.resolve(text.includes('"msg":"event not handled: answered 500') ? text : undefined);
    });
    expect(log).toMatch(
      /"msg":"invalid config; events are answered 500[^"]*","file":"[^"]*deployer-mock.yaml","problems":\["lockRetryDelay: /,
    );
    expect(log).toMatch(
      /"msg":"event not handled: answered 500, the broker retries it","function":"deployer-mock"/,
    );

    // fixed in place, then replayed: the function reads the file again and handles the events
    writeFileSync(join(configDir, 'deployer-mock.yaml'), good);
    const replayed = await dlq(['replay', '--all']);
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
    await until('every item Succeeded', async () => {
      const phases = await Promise.all(ITEMS.map(phase));
      return phases.every((p) => p === 'Succeeded') ? phases : undefined;
    });
    // a delivery the broker was still retrying when the file was fixed can fail once more before
    // the function reads the file again (every 5 s) and be dead-lettered after the replay: such a
    // letter is replayed too, as an operator would (a letter that a replay does not take away stays)
    await until('no reconcile event left in the DLQ', async () => {
      const left = (await letters()).filter(
        (x) => x.event?.type === RECONCILE && ITEMS.includes(itemOf(x) ?? ''),
      );
      if (left.length === 0) return true;
      const again = await dlq(['replay', '--all']);
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
      return undefined;
    });
  },
  // creation, 5 retries with exponential backoff (about 16 s) per event, the replay, cold starts
  scaled(180_000),
);
