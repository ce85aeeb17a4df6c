/**
 * The Pod table as printers.go's printPod computes it (Kubernetes 1.32): READY counts started
 * sidecars (restartable init containers), STATUS walks init containers then containers for a
 * reason, RESTARTS carries the age of the last restart.
 */
import type { KubeObject } from '../../api/types.js';
import { ageColumn, column, nameColumn, type KindColumns } from './columns.js';
import { POD } from './descriptions.js';
import { asArray, asRecord, humanDuration, int, str, timeOf } from './format.js';

type Rec = Record<string, unknown>;

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart?: number;
}

interface Scan extends PodSummary {
  sidecarRestarts: number;
  lastSidecarRestart?: number;
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined) return a;
  return a === undefined || a < b ? b : a;
}

function finishedAt(status: Rec): number | undefined {
  return timeOf(asRecord(asRecord(status.lastState).terminated).finishedAt);
}

function isObject(v: unknown): v is Rec {
  return v !== null && typeof v === 'object';
}

function terminatedReason(terminated: Rec, prefix: string): string {
  if (str(terminated.reason)) return `${prefix}${str(terminated.reason)}`;
  if (int(terminated.signal) !== 0) return `${prefix}Signal:${int(terminated.signal)}`;
  return `${prefix}ExitCode:${int(terminated.exitCode)}`;
}

/** One init container status: undefined to go on to the next one, else the pod's reason. */
function initReason(
  c: Rec,
  index: number,
  initCount: number,
  sidecar: boolean,
  scan: Scan,
): string | undefined {
  const state = asRecord(c.state);
  const terminated = isObject(state.terminated) ? state.terminated : undefined;
  if (terminated && int(terminated.exitCode) === 0) return undefined;
  if (sidecar && c.started === true) {
    if (c.ready === true) scan.ready++;
    return undefined;
  }
  if (terminated) return terminatedReason(terminated, 'Init:');
  const waiting = str(asRecord(state.waiting).reason);
  if (waiting && waiting !== 'PodInitializing') return `Init:${waiting}`;
  return `Init:${index}/${initCount}`;
}

/** Walks the init container statuses; true while the pod is still initializing. */
function scanInit(spec: Rec, status: Rec, scan: Scan): boolean {
  const initContainers = asArray(spec.initContainers).map(asRecord);
  const sidecars = new Set(
    initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => str(c.name)),
  );
  const statuses = asArray(status.initContainerStatuses).map(asRecord);
  for (const [i, c] of statuses.entries()) {
    const sidecar = sidecars.has(str(c.name));
    scan.restarts += int(c.restartCount);
    scan.lastRestart = later(scan.lastRestart, finishedAt(c));
    if (sidecar) {
      scan.sidecarRestarts += int(c.restartCount);
      scan.lastSidecarRestart = later(scan.lastSidecarRestart, finishedAt(c));
    }
    const reason = initReason(c, i, initContainers.length, sidecar, scan);
    if (reason !== undefined) {
      scan.reason = reason;
      return true;
    }
  }
  return false;
}

function hasCondition(status: Rec, type: string): boolean {
  const condition = asArray(status.conditions)
    .map(asRecord)
    .find((c) => c.type === type);
  return condition?.status === 'True';
}

/** One container status (walked last to first); true when it is ready and running. */
function containerState(c: Rec, scan: Scan): boolean {
  const state = asRecord(c.state);
  const waiting = str(asRecord(state.waiting).reason);
  if (isObject(state.waiting) && waiting) scan.reason = waiting;
  else if (isObject(state.terminated)) scan.reason = terminatedReason(state.terminated, '');
  else if (c.ready === true && isObject(state.running)) {
    scan.ready++;
    return true;
  }
  return false;
}

function scanContainers(status: Rec, scan: Scan): void {
  scan.restarts = scan.sidecarRestarts;
  scan.lastRestart = scan.lastSidecarRestart;
  let hasRunning = false;
  for (const c of asArray(status.containerStatuses).map(asRecord).reverse()) {
    scan.restarts += int(c.restartCount);
    scan.lastRestart = later(scan.lastRestart, finishedAt(c));
    if (containerState(c, scan)) hasRunning = true;
  }
  if (scan.reason === 'Completed' && hasRunning)
    scan.reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
}

function initialReason(status: Rec): string {
  const gated = asArray(status.conditions)
    .map(asRecord)
    .some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated');
  if (gated) return 'SchedulingGated';
  return str(status.reason) || str(status.phase);
}

function summarize(pod: KubeObject): PodSummary {
  const spec = asRecord(pod.spec);
  const status = asRecord(pod.status);
  const sidecars = asArray(spec.initContainers).filter((c) => asRecord(c).restartPolicy === 'Always');
  const scan: Scan = {
    ready: 0,
    total: asArray(spec.containers).length + sidecars.length,
    reason: initialReason(status),
    restarts: 0,
    sidecarRestarts: 0,
  };
  const initializing = scanInit(spec, status, scan);
  if (!initializing || hasCondition(status, 'Initialized')) scanContainers(status, scan);
  const phase = str(status.phase);
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') scan.reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed')
    scan.reason = 'Terminating';
  return scan;
}

/** Recomputed per cell: stored objects may change between two tables, so nothing is cached. */
function summary(pod: KubeObject): PodSummary {
  return summarize(pod);
}

function restartsCell(pod: KubeObject, now: Date): string {
  const { restarts, lastRestart } = summary(pod);
  if (restarts === 0 || lastRestart === undefined) return String(restarts);
  return `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;
}

function readinessGates(pod: KubeObject): string {
  const gates = asArray(asRecord(pod.spec).readinessGates).map(asRecord);
  if (gates.length === 0) return '<none>';
  const conditions = asArray(asRecord(pod.status).conditions).map(asRecord);
  const isTrue = (type: unknown): boolean => conditions.find((c) => c.type === type)?.status === 'True';
  return `${gates.filter((g) => isTrue(g.conditionType)).length}/${gates.length}`;
}

function orNone(value: unknown): string {
  return str(value) || '<none>';
}

/** status.podIPs[0]; conversion from v1 fills podIPs from a lone podIP. */
function podIP(pod: KubeObject): string {
  const status = asRecord(pod.status);
  return str(asRecord(asArray(status.podIPs)[0]).ip) || orNone(status.podIP);
}

export const podColumns: KindColumns = {
  Name: nameColumn,
  Ready: column('string', POD.ready, (o) => `${summary(o).ready}/${summary(o).total}`),
  Status: column('string', POD.status, (o) => summary(o).reason),
  Restarts: column('string', POD.restarts, (o, ctx) => restartsCell(o, ctx.now)),
  Age: ageColumn,
  IP: column('string', POD.podIP, podIP),
  Node: column('string', POD.nodeName, (o) => orNone(asRecord(o.spec).nodeName)),
  'Nominated Node': column('string', POD.nominatedNodeName, (o) =>
    orNone(asRecord(o.status).nominatedNodeName),
  ),
  'Readiness Gates': column('string', POD.readinessGates, readinessGates),
};

/** The row conditions printPod sets for a finished pod. */
export function podRowConditions(pod: KubeObject): Rec[] | undefined {
  const phase = asRecord(pod.status).phase;
  if (phase === 'Succeeded')
    return [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ];
  if (phase === 'Failed')
    return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}
