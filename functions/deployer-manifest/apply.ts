/**
 * Validate-then-apply (the I/O shell around plan.ts).
 *
 * 1. Resolve every manifest's kind on the target cluster (or from a CRD in the list); a kind the
 *    cluster does not know, or a namespaced object without a namespace, is a problem.
 * 2. Read each object and plan its action (plan.ts).
 * 3. Dry-run every planned write on the server (`dryRun=All`), all of them, so every invalid
 *    manifest is named at once. Skipped (not applicable) for objects of kinds only a CRD in the
 *    same list defines, and a missing namespace that the list itself creates is no problem.
 * 4. Only when nothing was found: apply, group by group (CRDs, cluster-scoped, namespaced) with a
 *    checkpoint before each group, up to `concurrency` writes at a time inside a group.
 * Any problem in 1-3 ends the step with one DeployerError listing all of them; nothing is written.
 * A write that still fails in 4 (a race, a CRD not established yet) fails the step after its
 * group; what was written stays and the retried step finds it and records it.
 */
import pLimit from 'p-limit';
import type { GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound, statusCode, type KubeClient } from '../../shared/kube/index.js';
import type { KindResolver, ResolvedKind } from './discovery.js';
import {
  apiErrorMessage,
  classifyApiError,
  missingNamespace,
  problemsError,
  requestError,
  type Problem,
  type WriteVerb,
} from './errors.js';
import type { JsonObject } from './objects.js';
import {
  APPLY_GROUPS,
  applyGroupOf,
  isManagedAfter,
  managedEntry,
  planApply,
  refOf,
  type ApplyAction,
  type ApplyGroup,
} from './plan.js';
import {
  manifestLabel,
  manifestShapeProblems,
  type ManifestEntry,
  type UpdateStrategy,
} from './provider-config.js';
import { compareManaged, refKey, type ManagedResource, type ResourceRef } from './provider-status.js';

export const APPLY_OPERATION = 'ApplyObjects';

export interface ApplyContext {
  client: KubeClient;
  resolver: KindResolver;
  itemName: string;
  strategy: UpdateStrategy;
  serverDryRun: boolean;
  concurrency: number;
  checkpoint(name: string): void;
}

interface Resolved {
  entry: ManifestEntry;
  label: string;
  ref: ResourceRef;
  kind: ResolvedKind;
}

interface Planned extends Resolved {
  group: ApplyGroup;
  action: ApplyAction;
}

export interface ValidatedPlan {
  planned: Planned[];
  /** Identities of every object the list names (any policy), for the dropped-object cleanup. */
  listed: Set<string>;
}

function resolutionProblem(entry: ManifestEntry, kind: ResolvedKind | undefined): string | undefined {
  const { apiVersion, kind: k, metadata } = entry.object;
  if (!kind) return `kind ${k} of apiVersion ${apiVersion} is not served by the target cluster`;
  if (kind.gvk.namespaced && !metadata.namespace) return `${k} is namespaced: metadata.namespace is required`;
  return undefined;
}

async function resolveEntry(ctx: ApplyContext, entry: ManifestEntry): Promise<Resolved | Problem> {
  const label = manifestLabel(entry.index, entry.object);
  const kind = await ctx.resolver.resolve(entry.object.apiVersion, entry.object.kind);
  const problem = resolutionProblem(entry, kind);
  if (problem || !kind) return { kind: 'invalid', message: `${label}: ${problem}` };
  return { entry, label, ref: refOf(entry.object, kind.gvk.namespaced), kind };
}

/** The identity of an ignored manifest (it still counts as listed); undefined when it has none. */
async function ignoredIdentity(ctx: ApplyContext, entry: ManifestEntry): Promise<string | undefined> {
  if (manifestShapeProblems(entry.object).length > 0) return undefined;
  const kind = await ctx.resolver.resolve(entry.object.apiVersion, entry.object.kind);
  return refKey(refOf(entry.object, kind?.gvk.namespaced ?? entry.object.metadata.namespace !== undefined));
}

function isProblem(x: Resolved | Problem): x is Problem {
  return 'message' in x;
}

async function readCurrent(
  client: KubeClient,
  gvk: GroupVersionKind,
  ref: ResourceRef,
): Promise<JsonObject | undefined> {
  try {
    return await client.get<JsonObject>(gvk, ref.namespace, ref.name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw requestError(APPLY_OPERATION, 'GetObject', `reading ${ref.kind} ${ref.name}`, err);
  }
}

async function planEntry(ctx: ApplyContext, r: Resolved): Promise<Planned> {
  const { gvk, served } = r.kind;
  const current = served ? await readCurrent(ctx.client, gvk, r.ref) : undefined;
  const action = planApply({
    entry: r.entry,
    namespaced: gvk.namespaced,
    strategy: ctx.strategy,
    itemName: ctx.itemName,
    ...(current ? { current } : {}),
  });
  return { ...r, group: applyGroupOf(gvk.apiVersion, gvk.kind, gvk.namespaced), action };
}

/** The write of an action (dry run or real); undefined for a skip. */
function write(client: KubeClient, p: Planned, dryRun: boolean): Promise<unknown> | undefined {
  const { gvk } = p.kind;
  const ref = { name: p.ref.name, ...(p.ref.namespace ? { namespace: p.ref.namespace } : {}) };
  switch (p.action.op) {
    case 'create':
      return client.create(gvk, p.action.body, { dryRun });
    case 'update':
      return client.replace(gvk, p.action.body, { dryRun });
    case 'patch':
      return client.mergePatch(gvk, ref, p.action.patch, { dryRun });
    default:
      return undefined;
  }
}

function verbOf(action: ApplyAction): WriteVerb {
  return action.op === 'skip' ? 'get' : action.op;
}

/** Namespaces the list creates (a planned create of a Namespace). */
function namespacesCreated(planned: readonly Planned[]): Set<string> {
  const out = new Set<string>();
  for (const p of planned)
    if (p.action.op === 'create' && p.kind.gvk.group === '' && p.kind.gvk.kind === 'Namespace')
      out.add(p.ref.name);
  return out;
}

async function dryRunOne(
  ctx: ApplyContext,
  p: Planned,
  creates: ReadonlySet<string>,
): Promise<Problem | undefined> {
  if (!p.kind.served) return undefined;
  try {
    await write(ctx.client, p, true);
    return undefined;
  } catch (err) {
    const ns = missingNamespace(err);
    if (ns !== undefined && creates.has(ns)) return undefined;
    return { kind: classifyApiError(err, verbOf(p.action)), message: `${p.label}: ${apiErrorMessage(err)}` };
  }
}

const INVALID_LEAD = 'invalid manifests, nothing applied';

/** Steps 1-3: the plan, or a DeployerError listing every problem found. */
export async function validateAndPlan(
  ctx: ApplyContext,
  entries: readonly ManifestEntry[],
): Promise<ValidatedPlan> {
  const limit = pLimit(ctx.concurrency);
  const ignored = entries.filter((e) => e.policy === 'ignore');
  const applied = entries.filter((e) => e.policy !== 'ignore');
  const resolved = await Promise.all(applied.map((e) => limit(() => resolveEntry(ctx, e))));
  const problems: Problem[] = resolved.filter(isProblem);
  const ok = resolved.filter((r): r is Resolved => !isProblem(r));
  const ignoredKeys = await Promise.all(ignored.map((e) => limit(() => ignoredIdentity(ctx, e))));
  const listed = new Set([...ok.map((r) => refKey(r.ref)), ...ignoredKeys.filter((k): k is string => !!k)]);
  const planned = await Promise.all(ok.map((r) => limit(() => planEntry(ctx, r))));
  if (ctx.serverDryRun) {
    const creates = namespacesCreated(planned);
    const found = await Promise.all(planned.map((p) => limit(() => dryRunOne(ctx, p, creates))));
    problems.push(...found.filter((p): p is Problem => p !== undefined));
  }
  if (problems.length > 0) throw problemsError(APPLY_OPERATION, 'ValidateManifests', INVALID_LEAD, problems);
  return { planned, listed };
}

/**
 * How a failed write counts. An object of a kind only a CRD of this list defined may meet a
 * CRD that is not established yet (404): that passes, the step is retried.
 */
function applyProblem(p: Planned, err: unknown): Problem {
  const kind =
    !p.kind.served && statusCode(err) === 404 ? 'transient' : classifyApiError(err, verbOf(p.action));
  return { kind, message: `${p.label}: ${apiErrorMessage(err)}` };
}

async function applyOne(ctx: ApplyContext, p: Planned): Promise<Problem | undefined> {
  try {
    await write(ctx.client, p, false);
    return undefined;
  } catch (err) {
    return applyProblem(p, err);
  }
}

/** Step 4: applies the plan in group order; the managed resources (upstream order). */
export async function applyPlan(ctx: ApplyContext, plan: ValidatedPlan): Promise<ManagedResource[]> {
  const limit = pLimit(ctx.concurrency);
  const managed: ManagedResource[] = [];
  for (const group of APPLY_GROUPS) {
    const batch = plan.planned.filter((p) => p.group === group);
    if (batch.length === 0) continue;
    ctx.checkpoint('deployer: apply manifests');
    const failed = (await Promise.all(batch.map((p) => limit(() => applyOne(ctx, p))))).filter(
      (x): x is Problem => x !== undefined,
    );
    if (failed.length > 0)
      throw problemsError(APPLY_OPERATION, 'ApplyNewObject', 'applying manifests failed', failed);
    managed.push(
      ...batch
        .filter((p) => isManagedAfter(p.action))
        .map((p) => managedEntry(p.entry, p.ref))
        .sort(compareManaged),
    );
  }
  return managed;
}
