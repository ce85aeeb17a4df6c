/**
 * The two steps of the manifest deployer. Each does a bounded amount of work and returns; the
 * runtime calls again after a `wait`, with the providerStatus this step returned.
 *
 * Reconcile:
 * 1. Parse the provider configuration (every problem → ERR_CONFIGURATION_PROBLEM).
 * 2. Unless the providerStatus says this job (jobID and generation) is applied already:
 *    validate everything (kinds, dry run) and apply (apply.ts); objects dropped from the list
 *    become `orphanedResources`.
 * 3. Delete the orphaned objects in group order; some still there → `wait`.
 * 4. Default readiness checks (unless disabled), then the custom ones; not ready → `wait`
 *    (the progressing-timeout checkpoint is passed only while something is not ready, so a
 *    deadline ends the job Failed with ERR_TIMEOUT).
 * 5. Exports (exports.ts): a value not there yet → `wait`; else the export Secret is written;
 *    then patchAfterDeployment (patch-after.ts).
 * 6. `done` with managedResources (and `exportRef`).
 *
 * Delete (uninstall): every managed object (and orphan) except keep/ignore, in group order;
 * `wait` while a group is not gone yet; then the export Secret (exportRef cleared).
 */
import { GVK } from '../../shared/api/gvk.js';
import type { DeployItem } from '../../shared/api/landscaper.js';
import type { StepContext, StepResult } from '../../shared/deployer/types.js';
import { isNotFound, type KubeClient } from '../../shared/kube/index.js';
import { applyFailure, applyPlan, validateAndPlan, type ApplyContext } from './apply.js';
import { notReady } from './check-ready.js';
import { customNotReady } from './custom-ready.js';
import { deletionGroupsForDelete } from './deletion-config.js';
import { deletable, type DeletionOutcome } from './deletion.js';
import { KindResolver } from './discovery.js';
import { configurationError, requestError } from './errors.js';
import { readExports, writeExport } from './exports.js';
import { patchAfterDeployment } from './patch-after.js';
import { isCrd } from './objects.js';
import { orphansOf } from './plan.js';
import { kubeconfigOf, parseProviderConfig, type ManifestProviderConfig } from './provider-config.js';
import {
  buildProviderStatus,
  describeRef,
  readProviderStatus,
  refKey,
  uniqueManaged,
  type ManagedResource,
  type ManifestProviderStatus,
} from './provider-status.js';
import { deleteInGroups } from './uninstall.js';

export interface StepOptions {
  requeueAfterMs: number;
  serverDryRun: boolean;
  concurrency: number;
  /** The client for the step: the provider configuration's kubeconfig, else the Target's. */
  clientFor(ctx: StepContext, kubeconfig: string | undefined, operation: string): KubeClient;
}

export const CHECKPOINTS = {
  startReconcile: 'manifest deployer: start reconcile',
  cleanupOrphaned: 'deployer: cleanup orphaned',
  beforeReadiness: 'manifest deployer: before readiness check',
  defaultReadiness: 'manifest deployer: default readiness checks',
  customReadiness: 'manifest deployer: custom readiness checks',
  beforeExports: 'manifest deployer: before reading export values',
  startDelete: 'manifest deployer: start delete',
} as const;

const RECONCILE_OPERATION = 'ReconcileManifests';
const DELETE_OPERATION = 'DeleteManifests';

export function parseConfigOrThrow(item: DeployItem): ManifestProviderConfig {
  const parsed = parseProviderConfig(item.spec.config);
  if (parsed.ok) return parsed.config;
  throw configurationError(
    'InitManifestOperation',
    'ValidateProviderConfiguration',
    'invalid manifest provider configuration',
    parsed.problems,
  );
}

interface Job {
  jobID: string;
  generation: number;
}

function jobOf(item: DeployItem): Job {
  return { jobID: item.status?.jobID ?? '', generation: item.metadata?.generation ?? 0 };
}

/** Whether the providerStatus records this job's apply (re-entry skips validation and apply). */
export function appliedAlready(status: ManifestProviderStatus, job: Job): boolean {
  return status.appliedJobID === job.jobID && status.appliedGeneration === job.generation;
}

function listed(refs: readonly ManagedResource[], max = 5): string {
  const shown = refs.slice(0, max).map((m) => describeRef(m.resource));
  return refs.length > max ? `${shown.join(', ')} and ${refs.length - max} more` : shown.join(', ');
}

interface Step {
  ctx: StepContext;
  o: StepOptions;
  client: KubeClient;
  resolver: KindResolver;
}

interface ReconcileStep extends Step {
  config: ManifestProviderConfig;
}

function applyContext(s: ReconcileStep): ApplyContext {
  return {
    client: s.client,
    resolver: s.resolver,
    itemName: s.ctx.item.metadata?.name ?? '',
    strategy: s.config.updateStrategy,
    serverDryRun: s.o.serverDryRun,
    concurrency: s.o.concurrency,
    checkpoint: (name) => s.ctx.checkpoint(name),
  };
}

async function applyJob(
  s: ReconcileStep,
  previous: ManifestProviderStatus,
  job: Job,
): Promise<ManifestProviderStatus> {
  const actx = applyContext(s);
  const plan = await validateAndPlan(actx, s.config.manifests);
  const { managed, failed } = await applyPlan(actx, plan);
  const before = uniqueManaged([...previous.managedResources, ...previous.orphanedResources]);
  if (failed.length > 0) {
    // not applied yet: what was written is managed, everything managed before is kept in view
    const written = new Set(managed.map((m) => refKey(m.resource)));
    const kept = before.filter((m) => !written.has(refKey(m.resource)));
    throw applyFailure(failed, buildProviderStatus({ managedResources: managed, orphanedResources: kept }));
  }
  s.ctx.log.info('manifests applied', { managed: managed.length, strategy: s.config.updateStrategy });
  return {
    managedResources: managed,
    orphanedResources: orphansOf(before, plan.listed),
    appliedJobID: job.jobID,
    appliedGeneration: job.generation,
  };
}

function deleteContext(s: Step, operation: string): Parameters<typeof deleteInGroups>[0] {
  return {
    client: s.client,
    resolver: s.resolver,
    itemName: s.ctx.item.metadata?.name ?? '',
    concurrency: s.o.concurrency,
    operation,
    checkpoint: (name) => s.ctx.checkpoint(name),
  };
}

function waitForDeletion(
  s: Step,
  what: string,
  outcome: Extract<DeletionOutcome, { kind: 'wait' }>,
  status: ManifestProviderStatus,
): StepResult {
  return {
    kind: 'wait',
    afterMs: s.o.requeueAfterMs,
    reason: `waiting for ${what} (${outcome.group}) to be deleted: ${listed(outcome.waitingFor)}`,
    providerStatus: buildProviderStatus(status),
  };
}

async function readinessResult(s: ReconcileStep, status: ManifestProviderStatus): Promise<StepResult> {
  s.ctx.checkpoint(CHECKPOINTS.beforeReadiness);
  const rctx = { client: s.client, resolver: s.resolver, concurrency: s.o.concurrency };
  const checks: [string, () => Promise<string[]>][] = [
    [
      CHECKPOINTS.defaultReadiness,
      () =>
        s.config.readinessChecks.disableDefault
          ? Promise.resolve([])
          : notReady(rctx, status.managedResources),
    ],
    [CHECKPOINTS.customReadiness, () => customNotReady(rctx, s.config.readinessChecks.custom)],
  ];
  for (const [checkpoint, check] of checks) {
    const problems = await check();
    if (problems.length === 0) continue;
    s.ctx.checkpoint(checkpoint);
    const reason =
      problems.slice(0, 3).join('; ') + (problems.length > 3 ? ` (and ${problems.length - 3} more)` : '');
    return { kind: 'wait', afterMs: s.o.requeueAfterMs, reason, providerStatus: buildProviderStatus(status) };
  }
  return exportsResult(s, status);
}

/** Step 5: the exports, then patchAfterDeployment; `done` (with the export Secret's reference). */
async function exportsResult(s: ReconcileStep, status: ManifestProviderStatus): Promise<StepResult> {
  const providerStatus = buildProviderStatus(status);
  const patched = async (): Promise<void> =>
    patchAfterDeployment(
      { client: s.client, resolver: s.resolver },
      s.config.manifests,
      status.managedResources,
    );
  if (s.config.exports.length === 0) {
    await patched();
    return { kind: 'done', providerStatus };
  }
  s.ctx.checkpoint(CHECKPOINTS.beforeExports);
  const ectx = { client: s.client, resolver: s.resolver };
  const outcome = await readExports(ectx, s.config.exports, (name) => s.ctx.checkpoint(name));
  if (outcome.kind === 'missing') {
    const reason = `waiting for export ${outcome.key}: ${outcome.reason}`;
    return { kind: 'wait', afterMs: s.o.requeueAfterMs, reason, providerStatus };
  }
  try {
    const exportRef = await writeExport(s.ctx.hostClient, s.ctx.item, outcome.values);
    await patched();
    return { kind: 'done', providerStatus, exportRef };
  } catch (err) {
    throw requestError('CreateExports', 'CreateOrUpdateSecret', 'writing the export Secret', err);
  }
}

/** One reconcile step. */
export async function reconcileStep(ctx: StepContext, o: StepOptions): Promise<StepResult> {
  ctx.checkpoint(CHECKPOINTS.startReconcile);
  const config = parseConfigOrThrow(ctx.item);
  const client = o.clientFor(ctx, config.kubeconfig, RECONCILE_OPERATION);
  const crds = config.manifests.filter((e) => isCrd(String(e.object.apiVersion), String(e.object.kind)));
  const s: ReconcileStep = {
    ctx,
    o,
    client,
    config,
    resolver: new KindResolver(
      client,
      crds.map((e) => e.object),
    ),
  };
  let status = readProviderStatus(ctx.item.status?.providerStatus);
  const job = jobOf(ctx.item);
  if (!appliedAlready(status, job)) {
    status = await applyJob(s, status, job);
    // discovery answers cached before the apply do not know the CRDs it brought
    s.resolver = new KindResolver(client);
  }
  if (status.orphanedResources.length > 0) {
    ctx.checkpoint(CHECKPOINTS.cleanupOrphaned);
    const outcome = await deleteInGroups(
      deleteContext(s, 'ApplyObjects'),
      status.orphanedResources,
      config.deletionGroupsDuringUpdate,
    );
    if (outcome.kind === 'wait')
      return waitForDeletion(s, 'objects dropped from the manifests', outcome, {
        ...status,
        orphanedResources: outcome.remaining,
      });
    status = { ...status, orphanedResources: [] };
  }
  return readinessResult(s, status);
}

/** The kubeconfig of the configuration, which may not parse as a whole any more (delete goes on). */
function kubeconfigForDelete(item: DeployItem): string | undefined {
  try {
    return kubeconfigOf(item.spec.config);
  } catch (err) {
    throw configurationError(DELETE_OPERATION, 'TargetClusterClient', 'invalid provider configuration', [
      (err as Error).message,
    ]);
  }
}

/** The export Secret goes with the item (upstream: owned by it, so garbage collected). */
async function deleteExport(ctx: StepContext): Promise<StepResult> {
  const ref = ctx.item.status?.exportRef;
  if (!ref) return { kind: 'done' };
  try {
    await ctx.hostClient.delete(GVK.Secret, {
      namespace: ref.namespace ?? ctx.item.metadata?.namespace,
      name: ref.name,
    });
  } catch (err) {
    if (!isNotFound(err))
      throw requestError(DELETE_OPERATION, 'DeleteExport', 'deleting the export Secret', err);
  }
  return { kind: 'done', exportRef: null };
}

/** One uninstall step. */
export async function deleteStep(ctx: StepContext, o: StepOptions): Promise<StepResult> {
  const result = await deleteObjects(ctx, o);
  return result.kind === 'done' ? deleteExport(ctx) : result;
}

async function deleteObjects(ctx: StepContext, o: StepOptions): Promise<StepResult> {
  ctx.checkpoint(CHECKPOINTS.startDelete);
  const status = readProviderStatus(ctx.item.status?.providerStatus);
  const all = uniqueManaged([...status.managedResources, ...status.orphanedResources]);
  const targets = deletable(all);
  if (targets.length === 0) return { kind: 'done' };
  const client = o.clientFor(ctx, kubeconfigForDelete(ctx.item), DELETE_OPERATION);
  const s: Step = { ctx, o, client, resolver: new KindResolver(client) };
  const groups = deletionGroupsForDelete(ctx.item.spec.config);
  const outcome = await deleteInGroups(deleteContext(s, DELETE_OPERATION), targets, groups);
  if (outcome.kind !== 'wait') return { kind: 'done' };
  const kept = all.filter((m) => !targets.includes(m));
  return waitForDeletion(s, 'managed objects', outcome, {
    managedResources: [...kept, ...outcome.remaining],
    orphanedResources: [],
  });
}
