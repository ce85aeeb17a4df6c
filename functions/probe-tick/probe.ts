/**
 * One probe of one shoot (specs/dependency-watchdog.md "One probe"): the shoot's kubeconfig from
 * the Secret `<kubeConfigSecretName>` (key `kubeconfig`) in its seed namespace, GET `/version` on
 * the shoot's API server as the first request on a new connection, then the lease probe: the
 * shoot's Nodes, then its Leases (`kube-node-lease`), on that connection (direct https; through a
 * proxy or over plain http client-node's connection per request), and the seed's Machines,
 * decided by ./lease.ts; the connection is closed when the probe ends (./shootclient.ts). Every
 * shoot request has
 * probeTimeout as its whole deadline, as upstream's: dependency-watchdog
 * internal/util/k8shelper.go sets `rest.Config.Timeout = probeTimeout` on the config of both the
 * discovery client (`/version`) and the client of the Node and Lease lists, and client-go makes
 * that the `http.Client`'s Timeout (connect, TLS, request and body, per request). Upstream's new
 * controller-runtime client of every probe also discovers before its first list (GET `/api` and
 * `/apis`, controller-runtime pkg/client/apiutil/restmapper.go, v0.22): 5 shoot requests per probe
 * there, 3 here, whose paths are fixed. An HTTP 429 anywhere is reported as `throttled` (10 s back-off). With a seed view
 * (./seedview.ts, as probe-tick runs) the Secret and the Machines come from its lists (one per
 * kind for every shoot); without one, or when the Secret is not listable, they are read per shoot.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { NODE_LEASE_NAMESPACE } from '../../shared/api/builtin.js';
import { GVK, type GroupVersionKind } from '../../shared/api/gvk.js';
import { isNotFound, isTooManyRequests, resourcePath, type KubeClient } from '../../shared/kube/index.js';
import {
  decideLeaseProbe,
  formatProbeError,
  leaseCandidates,
  type LeaseProbeDecision,
  type ProbeLease,
  type ProbeMachine,
  type ProbeNode,
} from './lease.js';
import type { ShootProbe } from './shoots.js';
import { parseProbeSecret, SecretAbsentError, type SeedView } from './seedview.js';

/** A shoot's client for one probe; `close` ends its connections when the probe is over. */
export interface ShootConnection {
  client: KubeClient;
  close(): void;
}

export interface ProbeDeps {
  seed: KubeClient;
  /** A client for one probe of a shoot (the real one: one new connection per probe over direct https, ./shootclient.ts). */
  shootClient: (kc: KubeConfig) => ShootConnection;
  now: () => number;
  /** The seed's lists of this pass (Secret, Machines); absent: read per shoot. */
  view?: SeedView;
}

export type ProbeResult =
  | { kind: 'failed'; throttled: boolean; message: string }
  | { kind: 'lease'; throttled: false; decision: LeaseProbeDecision; excluded: number; ignored: number };

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The shoot's kubeconfig from its Secret, checked as a Target's is (no exec, no files). */
async function shootKubeConfig(deps: ProbeDeps, namespace: string, secretName: string): Promise<KubeConfig> {
  const listed = await deps.view?.kubeConfig(namespace);
  if (listed) return listed;
  const secret = await deps.seed.get<{ metadata?: { name?: string }; data?: Record<string, string> }>(
    GVK.Secret,
    namespace,
    secretName,
  );
  const result = parseProbeSecret(secret, namespace, secretName);
  if (result instanceof Error) throw result;
  return result;
}

async function setup(deps: ProbeDeps, probe: ShootProbe): Promise<ShootConnection | ProbeResult> {
  const name = probe.config.kubeConfigSecretName;
  try {
    return deps.shootClient(await shootKubeConfig(deps, probe.namespace, name));
  } catch (err) {
    const absent = isNotFound(err) || err instanceof SecretAbsentError;
    const what = absent ? `secret ${probe.namespace}/${name} not found` : describe(err);
    return {
      kind: 'failed',
      throttled: isTooManyRequests(err),
      message: formatProbeError('ERR_SETUP_PROBE_CLIENT', 'Failed to create shoot client', what),
    };
  }
}

/** A GET on the shoot's API server with `timeoutMs` as its whole deadline (and inactivity limit). */
function shootGet(shoot: KubeClient, path: string, timeoutMs: number): Promise<{ body: string }> {
  return shoot.request({ method: 'GET', path, timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
}

async function shootList<T>(
  shoot: KubeClient,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  timeoutMs: number,
): Promise<{ items: T[] }> {
  const res = await shootGet(shoot, resourcePath(gvk, { namespace }), timeoutMs);
  return JSON.parse(res.body) as { items: T[] };
}

async function probeApiServer(shoot: KubeClient, timeoutMs: number): Promise<ProbeResult | undefined> {
  try {
    await shootGet(shoot, '/version', timeoutMs);
    return undefined;
  } catch (err) {
    return {
      kind: 'failed',
      throttled: isTooManyRequests(err),
      message: formatProbeError('ERR_PROBE_API_SERVER', 'Failed to probe API server', describe(err)),
    };
  }
}

async function probeLeases(deps: ProbeDeps, shoot: KubeClient, probe: ShootProbe): Promise<ProbeResult> {
  const timeoutMs = probe.config.probeTimeout;
  try {
    // one after the other, each with its own deadline, as upstream's probeNodeLeases (the Nodes,
    // then their Leases); they share the probe's one connection, so neither waits on the other's
    const shootLists = async (): Promise<{
      nodes: { items: ProbeNode[] };
      leases: { items: ProbeLease[] };
    }> => {
      const nodes = await shootList<ProbeNode>(shoot, GVK.Node, undefined, timeoutMs);
      const leases = await shootList<ProbeLease>(shoot, GVK.Lease, NODE_LEASE_NAMESPACE, timeoutMs);
      return { nodes, leases };
    };
    const [{ nodes, leases }, machines] = await Promise.all([
      shootLists(),
      deps.view
        ? deps.view.machines(probe.namespace).then((items) => ({ items }))
        : deps.seed.list<ProbeMachine>(GVK.Machine, probe.namespace),
    ]);
    const c = leaseCandidates({
      nodes: nodes.items,
      leases: leases.items,
      machines: machines.items,
      conditionsByPool: probe.workerNodeConditions,
    });
    const decision = decideLeaseProbe({
      candidates: c.candidates,
      now: new Date(deps.now()),
      nodeMonitorGracePeriodMs: probe.config.kcmNodeMonitorGraceDuration,
      nodeLeaseFailureFraction: probe.config.nodeLeaseFailureFraction,
    });
    return {
      kind: 'lease',
      throttled: false,
      decision,
      excluded: c.excludedNodes.length,
      ignored: c.ignoredLeases.length,
    };
  } catch (err) {
    return {
      kind: 'failed',
      throttled: isTooManyRequests(err),
      message: formatProbeError('ERR_PROBE_NODE_LEASE', 'Failed to probe node leases', describe(err)),
    };
  }
}

/** One probe: API server first (a failure means no scaling), then the node leases. */
export async function probeShoot(deps: ProbeDeps, probe: ShootProbe): Promise<ProbeResult> {
  const shoot = await setup(deps, probe);
  if ('kind' in shoot) return shoot;
  try {
    return (
      (await probeApiServer(shoot.client, probe.config.probeTimeout)) ??
      (await probeLeases(deps, shoot.client, probe))
    );
  } finally {
    shoot.close();
  }
}
