/**
 * The ways probe-tick is run in the prober bench's A/B, each as an instance override:
 * - `now`: as it is.
 * - `per-request`: the shoot client before the connection per probe (commit e5dfedf,
 *   functions/probe-tick/shootclient.ts then): a new connection with a full handshake for each of
 *   a probe's 3 requests, the TLS context built once per kubeconfig; everything else as now (the
 *   Lease list after the Node list; e5dfedf sent both at once on two connections).
 * - `before`: as before issue 16 (commit 298b53b): each shoot's probe Secret, Machines and
 *   dependents read on their own (8 seed requests per healthy shoot, `readPerShoot`), the
 *   kubeconfig parsed per probe, and client-node's own agent per shoot request (a TLS context
 *   built per connection). Checked against 298b53b's own bench on one machine, alternately:
 *   22.15 / 17.45 s there, 21.25 / 17.23 s this way (1,000 shoots).
 */
import https from 'node:https';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import type { TickDeps } from '../../functions/probe-tick/tick.js';
import { createKubeClient } from '../../shared/kube/index.js';

export const WAYS = ['before', 'per-request', 'now'] as const;
export type Way = (typeof WAYS)[number];

type FetchOptions = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;

/** e5dfedf's shoot client: client-node's agent options, keep-alive off, one TLS context per kubeconfig. */
function perRequestClient(): TickDeps['shootClient'] {
  const agents = new WeakMap<KubeConfig, https.Agent>();
  return (kc) => {
    const wrapped = Object.create(kc) as KubeConfig;
    wrapped.applyToFetchOptions = async (opts): Promise<FetchOptions> => {
      const init = await kc.applyToFetchOptions(opts);
      const given = init.agent as unknown;
      if (!(given instanceof https.Agent) || given.constructor !== https.Agent) return init;
      let agent = agents.get(kc);
      if (!agent) {
        const options = (given as https.Agent & { options: https.AgentOptions }).options;
        agent = new https.Agent({
          ...options,
          keepAlive: false,
          maxCachedSessions: 0,
          secureContext: tls.createSecureContext(options),
        });
        agents.set(kc, agent);
      }
      return { ...init, agent };
    };
    return { client: createKubeClient(wrapped), close: () => undefined };
  };
}

/** The instance overrides of a way. */
export function wayOverrides(way: Way): Partial<TickDeps> {
  if (way === 'now') return {};
  if (way === 'per-request') return { shootClient: perRequestClient() };
  return {
    readPerShoot: true,
    shootClient: (kc) => ({ client: createKubeClient(kc), close: () => undefined }),
  };
}
