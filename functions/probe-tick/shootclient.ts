/**
 * The client of a shoot probe: a new connection per request and no resumed TLS session, as
 * upstream's. dependency-watchdog (internal/prober/prober.go) creates two clients per probe
 * through internal/prober/shoot/client.go, a discovery client for `/version` and a
 * controller-runtime client for the Node and Lease lists; internal/util/k8shelper.go
 * (createRestConfigFromKubeConfigBytes, createTransportWithDisabledKeepAlive) gives each a fresh
 * `http.DefaultTransport` clone with `DisableKeepAlives = true` (dependency-watchdog issue 61:
 * a kept connection must not hide a broken API server) and installs it with `rest.Config.Wrap`.
 * That wrapper replaces the transport client-go's `transport.New` took from its `tlsCache`
 * (k8s.io/client-go transport/cache.go), so nothing is shared between requests or probes; the
 * `tls.Config` from `rest.TLSConfigFor` (transport/transport.go) has no ClientSessionCache, so
 * Go's client never resumes a session either.
 * What is shared here is only the TLS context (the CA parsed into an OpenSSL context), built once
 * per kubeconfig object instead of once per connection: probe-tick keeps one parsed kubeconfig
 * per probe Secret resourceVersion (./seedview.ts), so a changed Secret gets a new one. On the
 * wire nothing changes: every request opens its own TCP and TLS connection with a full
 * handshake and verifies the server's certificate; no session is resumed (maxCachedSessions 0)
 * and no socket is kept (keepAlive false). Proxies and plain http are left to client-node.
 */
import https from 'node:https';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient, type KubeClient } from '../../shared/kube/index.js';

type FetchOptions = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;

function sharedAgent(
  agents: WeakMap<KubeConfig, https.Agent>,
  kc: KubeConfig,
  given: https.Agent,
): https.Agent {
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
  return agent;
}

/** `kc` whose fetch options carry the TLS context built once for it. */
export function withSharedTlsContext(kc: KubeConfig, agents: WeakMap<KubeConfig, https.Agent>): KubeConfig {
  const wrapped = Object.create(kc) as KubeConfig;
  wrapped.applyToFetchOptions = async (opts): Promise<FetchOptions> => {
    const init = await kc.applyToFetchOptions(opts);
    const given = init.agent as unknown;
    // exactly client-node's https.Agent (a proxy agent is another class)
    if (!(given instanceof https.Agent) || given.constructor !== https.Agent) return init;
    return { ...init, agent: sharedAgent(agents, kc, given) };
  };
  return wrapped;
}

/** The shoot client factory of probe-tick (ProbeDeps.shootClient). */
export function shootClientFactory(): (kc: KubeConfig) => KubeClient {
  const agents = new WeakMap<KubeConfig, https.Agent>();
  return (kc) => createKubeClient(withSharedTlsContext(kc, agents));
}
