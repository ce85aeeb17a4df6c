/**
 * What the responsibility check reads for an item no configured deployer handles, 1 KB versus
 * 1 MB, counted at the API server: before the job hand-out ran (no `deployer-type` annotation yet:
 * a metadata-only read, then the full item) and after it (annotated: the metadata-only read
 * alone, which should cost the same for any size). The metadata answer still carries
 * managedFields; their size is reported, and a third item puts its megabyte into ~23,000
 * `values` keys, which managedFields list one by one.
 */
import { GVK } from '../../shared/api/gvk.js';
import { trafficDelta, trafficTotal, type TrafficSnapshot } from '@landscape/kube-apiserver/testing';
import type { Harness } from './harness.js';
import { sizedItem, type Shape } from './items.js';

export interface SizeCase {
  label: string;
  name: string;
  bytes: number;
  shape: Shape;
}

/** Names of equal length, so that no byte of difference comes from them. */
export const SIZE_CASES: readonly SizeCase[] = [
  { label: '1 KB (chart archive)', name: 'size-1kb-a', bytes: 1024, shape: 'archive' },
  { label: '1 MB (chart archive)', name: 'size-1mb-a', bytes: 1024 * 1024, shape: 'archive' },
  { label: '1 MB (values, ~23k keys)', name: 'size-1mb-v', bytes: 1024 * 1024, shape: 'values' },
];

export interface CheckCost {
  /** Per check. */
  requests: number;
  responseBytes: number;
  /** Median wall time of one check, ms. */
  medianMs: number;
  traffic: TrafficSnapshot;
  /** Reconcile events sent (must be none: no deployer is responsible). */
  sent: number;
}

export interface SizeResult {
  c: SizeCase;
  /** The stored object as a full GET answers it. */
  objectBytes: number;
  before: CheckCost;
  after: CheckCost;
  /** JSON of metadata.managedFields in the metadata-only answer, after the trigger. */
  managedFieldsBytes: number;
  /** JSON of the whole metadata-only answer's metadata, after the trigger. */
  metadataBytes: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
}

async function checkCost(h: Harness, namespace: string, name: string, repeats: number): Promise<CheckCost> {
  const before = h.traffic.snapshot();
  const times: number[] = [];
  let sent = 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    sent += (await h.check({ namespace, name })).length;
    times.push(performance.now() - t0);
  }
  const traffic = trafficDelta(h.traffic.snapshot(), before);
  const total = trafficTotal(traffic);
  return {
    requests: total.requests / repeats,
    responseBytes: total.responseBytes / repeats,
    medianMs: median(times),
    traffic,
    sent,
  };
}

export async function runResponsibility(
  h: Harness,
  o: { namespace: string; repeats: number },
): Promise<SizeResult[]> {
  for (const c of SIZE_CASES)
    await h.client.create(GVK.DeployItem, sizedItem(o.namespace, c.name, c.bytes, c.shape));
  const before = new Map<string, CheckCost>();
  for (const c of SIZE_CASES) before.set(c.name, await checkCost(h, o.namespace, c.name, o.repeats));
  for (const c of SIZE_CASES) await h.trigger({ namespace: o.namespace, name: c.name });
  const out: SizeResult[] = [];
  for (const c of SIZE_CASES) {
    const after = await checkCost(h, o.namespace, c.name, o.repeats);
    const meta = (await h.client.getMetadata(GVK.DeployItem, o.namespace, c.name)).metadata;
    const full = await h.client.get(GVK.DeployItem, o.namespace, c.name);
    out.push({
      c,
      objectBytes: Buffer.byteLength(JSON.stringify(full)),
      before: before.get(c.name)!,
      after,
      managedFieldsBytes: Buffer.byteLength(JSON.stringify(meta.managedFields ?? [])),
      metadataBytes: Buffer.byteLength(JSON.stringify(meta)),
    });
  }
  return out;
}
