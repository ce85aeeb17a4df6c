/**
 * `npm run bench -- resync [--items N] [--passes N]`: the cost of one resync pass of the
 * responsibility check (the ping of the deployers' resync PingSource, knative/deployers/resync.yaml)
 * over N DeployItems (default 10,000) in the embedded API server, counted at the server: the
 * product's path (`resyncAll`: metadata-only pages, `Accept: application/json;as=PartialObjectMetadataList`,
 * decided from the listed annotations) next to the same decisions over full pages (what a resync
 * that lists whole objects would cost). Bytes are response bodies; the ratio is full ÷ metadata.
 *
 * The items are as the job hand-out leaves them (`deployer-type` and `deployer-target-name` set), each with a
 * ~2 KB provider configuration; every one is a mock item, so each pass emits N reconcile events
 * (counted, not sent). Passes alternate (metadata, full, metadata, ...) so that a warm cache or a
 * busy machine does not favour one side; the median pass of each is reported.
 */
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { GVK } from '../shared/api/gvk.js';
import type { DeployItem } from '../shared/api/landscaper.js';
import { forEachFullDeployItem } from '../shared/deployer/items.js';
import type { Event } from '../shared/events/index.js';
import { createKubeClient, kubeConfigFromYaml, type KubeClient } from '../shared/kube/index.js';
import { createLogger } from '../shared/log/index.js';
import { startApiServer, type ApiServer } from '@landscape/kube-apiserver';
import { trafficDelta, trafficTotal, type TrafficCount } from '@landscape/kube-apiserver/testing';
import {
  checkListedItem,
  resyncAll,
  type CheckDeps,
  type TargetCache,
} from '../functions/responsibility-check/check.js';
import { loadConfig, type CheckConfig } from '../functions/responsibility-check/config.js';
import { fmt, markdown, parseCommand, positiveInt, ratio, runBenchmark } from './common.js';
import { crdFiles } from '../shared/api/crds.js';

interface Options {
  items: number;
  passes: number;
}

interface Pass {
  ms: number;
  traffic: TrafficCount;
  /** `list deployitems` alone. */
  list: TrafficCount;
  looked: number;
  sent: number;
}

interface Measured {
  objectBytes: number;
  metadata: Pass[];
  full: Pass[];
  createMs: number;
}

const NS = 'resync-bench';
const TYPE_KEY = 'landscaper.gardener.cloud/deployer-type';
const TARGET_KEY = 'landscaper.gardener.cloud/deployer-target-name';

function parse(argv: string[]): Options | number {
  const cmd = new Command('npm run bench -- resync')
    .description('one resync pass of the responsibility check: metadata-only vs full lists')
    .option('--items <n>', 'DeployItems in the API server', positiveInt, 10_000)
    .option('--passes <n>', 'passes of each kind (alternating; the median is reported)', positiveInt, 3);
  return parseCommand<Options>(cmd, argv);
}

function item(i: number): DeployItem {
  return {
    apiVersion: 'landscaper.gardener.cloud/v1alpha1',
    kind: 'DeployItem',
    metadata: {
      name: `item-${String(i).padStart(5, '0')}`,
      namespace: NS,
      // as the job hand-out leaves them: the type, and upstream's .noTargetName (no Target)
      annotations: { [TYPE_KEY]: 'landscaper.gardener.cloud/mock', [TARGET_KEY]: '.noTargetName' },
    },
    spec: {
      type: 'landscaper.gardener.cloud/mock',
      config: {
        apiVersion: 'mock.deployer.landscaper.gardener.cloud/v1alpha1',
        kind: 'ProviderConfiguration',
        providerStatus: { bench: 'resync', padding: 'x'.repeat(2048) },
      },
    },
  };
}

function checkConfig(): CheckConfig {
  const r = loadConfig(undefined, { K_SINK: 'http://127.0.0.1:9/' });
  if (!r.ok) throw new Error(`responsibility-check config: ${r.problems.join('; ')}`);
  return r.config;
}

function deps(client: KubeClient, sent: Event[]): CheckDeps {
  return {
    client,
    send: (e) => Promise.resolve(void sent.push(e)),
    newId: randomUUID,
    now: () => new Date(),
    log: createLogger({ name: 'responsibility-check', destination: { write: (): void => undefined } }),
  };
}

/** The same decisions from full pages (the listed object's metadata; no read of its own). */
function fullPass(d: CheckDeps, config: CheckConfig): Promise<number> {
  const targets: TargetCache = new Map();
  return forEachFullDeployItem(d.client, (i) =>
    checkListedItem(
      d,
      config,
      { namespace: i.metadata?.namespace ?? '', name: i.metadata?.name ?? '', metadata: i.metadata ?? {} },
      targets,
    ),
  );
}

async function pass(
  server: ApiServer,
  client: KubeClient,
  run: (d: CheckDeps, config: CheckConfig) => Promise<number>,
): Promise<Pass> {
  const traffic = server.cluster().traffic!;
  const sent: Event[] = [];
  const before = traffic.snapshot();
  const t0 = performance.now();
  const looked = await run(deps(client, sent), checkConfig());
  const ms = performance.now() - t0;
  const delta = trafficDelta(traffic.snapshot(), before);
  const zero = { requests: 0, requestBytes: 0, responseBytes: 0, errors: 0 };
  return {
    ms,
    traffic: trafficTotal(delta),
    list: delta['list deployitems'] ?? zero,
    looked,
    sent: sent.length,
  };
}

async function measure(o: Options): Promise<Measured> {
  const server = await startApiServer({
    crdFiles: crdFiles(),
    clusters: [{ name: 'main', countTraffic: true }],
  });
  try {
    const yaml = server.cluster().kubeconfigYaml();
    const admin = createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: 'bench' });
    const fn = createKubeClient(kubeConfigFromYaml(yaml), { fieldManager: 'responsibility-check' });
    await admin.create(GVK.Namespace, { metadata: { name: NS } });
    // written into the store in-process (the same create path as a POST, without HTTP): the pass
    // is what is measured, and 10,000 POSTs take minutes on a busy machine
    const t0 = performance.now();
    const cluster = server.cluster('main');
    const def = cluster.registry.lookup('landscaper.gardener.cloud', 'v1alpha1', 'deployitems');
    if (!def) throw new Error('the embedded API server does not serve deployitems');
    for (let i = 0; i < o.items; i++)
      cluster.ops.create({ def, namespace: NS }, item(i), {
        fieldValidation: 'Strict',
        dryRun: false,
        fieldManager: 'landscaper',
      });
    const createMs = performance.now() - t0;
    const one = await admin.get(GVK.DeployItem, NS, item(0).metadata!.name!);
    const out: Measured = {
      objectBytes: Buffer.byteLength(JSON.stringify(one)),
      metadata: [],
      full: [],
      createMs,
    };
    for (let i = 0; i < o.passes; i++) {
      out.metadata.push(await pass(server, fn, resyncAll));
      out.full.push(await pass(server, fn, fullPass));
    }
    return out;
  } finally {
    await server.stop();
  }
}

function median(passes: Pass[]): Pass {
  return [...passes].sort((a, b) => a.ms - b.ms)[Math.floor((passes.length - 1) / 2)];
}

const mb = (bytes: number): string => `${fmt(bytes / 1e6, 1)} MB`;

function report(o: Options, m: Measured): string[] {
  const meta = median(m.metadata);
  const full = median(m.full);
  console.log(
    `${fmt(o.items)} DeployItems of ${fmt(m.objectBytes)} bytes each (created in ${fmt(m.createMs / 1000, 1)} s); ` +
      `median of ${o.passes} passes each, pages of 500\n`,
  );
  const row = (label: string, p: Pass): string[] => [
    label,
    fmt(p.ms / 1000, 2),
    fmt(p.traffic.requests),
    mb(p.list.responseBytes),
    mb(p.traffic.responseBytes),
    fmt(p.traffic.responseBytes / Math.max(1, p.looked)),
    fmt(p.sent),
  ];
  console.log(
    markdown(
      ['resync pass', 's', 'requests', 'list bytes', 'all bytes', 'bytes/item', 'reconcile events'],
      [
        row('metadata-only (as=PartialObjectMetadataList)', meta),
        row('full objects', full),
        [
          'full ÷ metadata',
          ratio(full.ms, meta.ms),
          '',
          '',
          ratio(full.traffic.responseBytes, meta.traffic.responseBytes),
          '',
          '',
        ],
      ],
    ),
  );
  const problems: string[] = [];
  for (const [label, p] of [
    ['metadata-only', meta],
    ['full', full],
  ] as const) {
    if (p.looked !== o.items) problems.push(`${label} pass looked at ${p.looked} of ${o.items} items`);
    if (p.sent !== o.items)
      problems.push(`${label} pass sent ${p.sent} reconcile events, expected ${o.items}`);
  }
  return problems;
}

export function run(argv: string[]): Promise<number> {
  return runBenchmark(argv, { name: 'resync', detailed: false, parse, measure, report });
}
