/**
 * Level-triggered correctness from Knative parts (issue 14's acceptance): objects created while
 * no function ran are reconciled by the families' resync PingSources alone, because the
 * ApiServerSource is as weak as Knative's (knative/eventing pkg/adapter/apiserver/delegate.go:
 * nothing for what exists when it starts).
 *
 * 1. `npm start -- --data-dir D --no-functions`: a mock DeployItem, a Seed and a Shoot that fits
 *    it, and a ManagedSeedSet (replicas 1; its replica's Shoot goes to a "soil" seed) are created
 *    with kubectl; the landscape stops.
 * 2. `npm start -- --data-dir D --resync-interval 5s` with every default family, plus a Trigger
 *    of this test that sends every event of the broker to a recorder here (a Trigger with a
 *    `subscriber.uri`, as on Knative): the item ends Succeeded, the Shoot is bound, the set has
 *    its ready replica.
 * 3. The recorder shows why: the source sent no add for any of the three (they existed when it
 *    started), every source event about them came after the first resync ping (the functions'
 *    own writes), and the source itself was live (a Shoot created now arrives as an add).
 * Generous condition waits (cold starts on a loaded machine), never elapsed-time assertions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  scaled,
  startLandscape,
  startTimeout,
  stopTimeout,
  until,
  TEST_TIMEOUT_MS,
  type Landscape,
} from './support.js';

const DEV = 'garden-dev';
const GARDEN = 'garden';
const ITEM = 'resync-item';
const SHOOT = 'resync-shoot';
const SEED = 'resync-seed';
const SET = 'resync-set';
const PINGS = '/apis/v1/namespaces/landscape-system/pingsources/';

interface Recorded {
  type: string;
  source: string;
  kind: string;
  name: string;
  namespace: string;
  /** Arrival order at the recorder. */
  seq: number;
}

interface Recorder {
  url: string;
  events: Recorded[];
  close(): Promise<void>;
}

/** An HTTP sink that records the binary-mode CloudEvents the broker delivers to it. */
async function startRecorder(): Promise<Recorder> {
  const events: Recorded[] = [];
  const header = (req: http.IncomingMessage, name: string): string => {
    const v = req.headers[name];
    return typeof v === 'string' ? v : '';
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      events.push({
        type: header(req, 'ce-type'),
        source: header(req, 'ce-source'),
        kind: header(req, 'ce-kind'),
        name: header(req, 'ce-name'),
        namespace: header(req, 'ce-namespace'),
        seq: events.length,
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const yamlDocs = (docs: unknown[]): string => docs.map((d) => stringify(d)).join('---\n');

const namespace = (name: string): unknown => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const cloudProfile = (name: string): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name },
  spec: { type: name },
});
const seedSpec = (provider: string): Record<string, unknown> => ({
  provider: { type: provider, region: provider },
  settings: { scheduling: { visible: true } },
  networks: { pods: '10.1.0.0/16', services: '10.2.0.0/16' },
});
const seed = (name: string, provider: string): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Seed',
  metadata: { name },
  spec: seedSpec(provider),
});
const shoot = (name: string, provider: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name, namespace: DEV },
  spec: {
    cloudProfileName: provider,
    region: provider,
    provider: { type: provider, workers: [{ name: 'pool', machine: { type: 'm' } }] },
    ...extra,
  },
});
const deployItem = (name: string): unknown => ({
  apiVersion: 'landscaper.gardener.cloud/v1alpha1',
  kind: 'DeployItem',
  metadata: { name, namespace: 'default' },
  spec: {
    type: 'landscaper.gardener.cloud/mock',
    config: {
      apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
      kind: 'ProviderConfiguration',
      providerStatus: { resynced: 'yes' },
    },
  },
});

/** A set of one replica: seeds of provider "setseed", its replicas' Shoots on provider "soil". */
function managedSeedSet(): unknown {
  const labels = { app: 'seeds', set: SET };
  return {
    apiVersion: 'seedmanagement.gardener.cloud/v1alpha1',
    kind: 'ManagedSeedSet',
    metadata: { name: SET, namespace: GARDEN },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          gardenlet: {
            config: {
              apiVersion: 'gardenlet.config.gardener.cloud/v1alpha1',
              kind: 'GardenletConfiguration',
              resources: { capacity: { shoots: 5 } },
              seedConfig: {
                metadata: { labels },
                spec: {
                  ...seedSpec('setseed'),
                  ingress: { domain: 'ingress.replica-name.seeds.local', controller: { kind: 'nginx' } },
                },
              },
            },
          },
        },
      },
      shootTemplate: {
        metadata: { labels },
        spec: {
          cloudProfileName: 'soil',
          region: 'soil',
          provider: { type: 'soil', workers: [{ name: 'pool', machine: { type: 'm' } }] },
          dns: { domain: 'replica-name.seeds.local' },
        },
      },
    },
  };
}

/** The observing Trigger: every event of the broker to the recorder (no filter). */
function observer(url: string): string {
  return yamlDocs([
    {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Trigger',
      metadata: { name: 'resync-test-observer', namespace: 'landscape-system' },
      spec: { broker: 'default', subscriber: { uri: url } },
    },
  ]);
}

const FIXTURES = [
  '--fixture-shoot-delay',
  '300ms',
  '--fixture-seed-delay',
  '300ms',
  '--fixture-seed-capacity',
  '10',
];

let dataDir: string;
let observerDir: string;
let recorder: Recorder;
let l: Landscape | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'resync-data-'));
  observerDir = mkdtempSync(join(tmpdir(), 'resync-observer-'));
  recorder = await startRecorder();
  writeFileSync(join(observerDir, 'observer.yaml'), observer(recorder.url));
});

afterAll(async () => {
  const stopped = await l?.stop();
  await recorder?.close();
  rmSync(observerDir, { recursive: true, force: true });
  if (stopped?.code === 0) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(l!.stateDir, { recursive: true, force: true });
  }
}, stopTimeout());

/** A machine this loaded (cold starts, bundles) can make a kubectl time out: poll again then. */
const TRANSIENT = /Unable to connect|TLS handshake timeout|i\/o timeout|connection refused|EOF|Timeout/;

async function json<T>(args: string[]): Promise<T | undefined> {
  const r = await l!.kubectl(['get', ...args, '-o', 'json']);
  if (r.code === 0) return JSON.parse(r.stdout) as T;
  if (/NotFound|not found/.test(r.stderr) || TRANSIENT.test(r.stderr)) return undefined;
  throw new Error(`${r.command}\n${r.stderr}`);
}

function wait<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  return until(what, probe, {
    timeoutMs: 120_000,
    intervalMs: 500,
    context: () => l!.output().slice(-4000),
  });
}

const ours = (e: Recorded): boolean =>
  (e.kind === 'DeployItem' && e.name === ITEM) ||
  (e.kind === 'Shoot' && e.name === SHOOT) ||
  (e.kind === 'ManagedSeedSet' && e.name === SET);
const fromSource = (e: Recorded): boolean => e.type.startsWith('dev.knative.apiserver.');
const resyncPing = (e: Recorded): boolean =>
  e.type === 'dev.knative.sources.ping' &&
  (e.source === `${PINGS}deployers-resync` || e.source === `${PINGS}seedmanagement-resync`);

it(
  'objects created while no function ran reach their end state through the resync alone',
  async () => {
    // 1. the API server alone: the objects are created, nothing reconciles them
    l = await startLandscape(['--data-dir', dataDir, '--no-default-clusters', ...FIXTURES]);
    await l.kubectlOk(['apply', '-f', '-'], {
      input: yamlDocs([
        namespace(DEV),
        namespace(GARDEN),
        ...['local', 'soil', 'setseed'].map(cloudProfile),
        seed(SEED, 'local'),
        seed('resync-soil', 'soil'),
        shoot(SHOOT, 'local'),
        deployItem(ITEM),
        managedSeedSet(),
      ]),
    });
    const before = await json<{ spec: { seedName?: string } }>(['shoot', SHOOT, '-n', DEV]);
    expect(before?.spec.seedName).toBeUndefined();
    expect((await l.stop()).code).toBe(0);

    // 2. every default family, a short resync interval, and the observing Trigger
    l = await startLandscape(
      [
        '--data-dir',
        dataDir,
        '--no-default-clusters',
        ...['runtime', 'deployers', 'seedmanagement', 'watchdog'].flatMap((f) => [
          '--knative-dir',
          `knative/${f}`,
        ]),
        '--knative-dir',
        observerDir,
        '--resync-interval',
        '5s',
        '--status-interval',
        '0',
        '--no-function-logs',
        ...FIXTURES,
      ],
      { functions: true },
    );
    await wait(`DeployItem ${ITEM} Succeeded`, async () => {
      const i = await json<{ status?: { phase?: string; jobID?: string; jobIDFinished?: string } }>([
        'deployitem',
        ITEM,
        '-n',
        'default',
      ]);
      const s = i?.status;
      return s?.phase === 'Succeeded' && s.jobID && s.jobIDFinished === s.jobID ? s : undefined;
    });
    await wait(`Shoot ${SHOOT} bound to ${SEED}`, async () => {
      const s = await json<{ spec: { seedName?: string } }>(['shoot', SHOOT, '-n', DEV]);
      return s?.spec.seedName === SEED ? s : undefined;
    });
    await wait(`ManagedSeedSet ${SET} with its ready replica`, async () => {
      const s = await json<{ status?: { replicas?: number; readyReplicas?: number } }>([
        'managedseedset',
        SET,
        '-n',
        GARDEN,
      ]);
      return s?.status?.readyReplicas === 1 ? s : undefined;
    });

    // 3. what the broker delivered: the source is live, and it sent no add for the three
    await l.kubectlOk(['apply', '-f', '-'], {
      input: yamlDocs([shoot('resync-marker', 'local', { schedulerName: 'not-ours' })]),
    });
    await wait('the add of a Shoot created now', () =>
      Promise.resolve(
        recorder.events.find((e) => fromSource(e) && e.type.endsWith('.add') && e.name === 'resync-marker'),
      ),
    );
    const firstPing = recorder.events.find(resyncPing);
    expect(firstPing).toBeDefined();
    const about = recorder.events.filter((e) => fromSource(e) && ours(e));
    expect(about.filter((e) => e.type.endsWith('.add'))).toEqual([]);
    expect(about.filter((e) => e.seq < firstPing!.seq)).toEqual([]);
  },
  2 * (startTimeout() + stopTimeout()) + scaled(TEST_TIMEOUT_MS) + 3 * scaled(120_000),
);
