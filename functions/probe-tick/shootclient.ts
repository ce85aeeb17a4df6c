/**
 * The client of a shoot probe: one new connection per probe, closed when the probe ends.
 *
 * Upstream, dependency-watchdog (internal/prober/prober.go) creates two clients per probe through
 * internal/prober/shoot/client.go, a discovery client for `/version` and a controller-runtime
 * client for the Node and Lease lists; internal/util/k8shelper.go
 * (createRestConfigFromKubeConfigBytes, createTransportWithDisabledKeepAlive) gives each a fresh
 * `http.DefaultTransport` clone with `DisableKeepAlives = true` (a kept connection must not hide a
 * broken API server) and installs it with `rest.Config.Wrap`, which replaces the transport
 * client-go's `transport.New` took from its `tlsCache` (k8s.io/client-go transport/cache.go); the
 * `tls.Config` from `rest.TLSConfigFor` (transport/transport.go) has no ClientSessionCache. So
 * upstream opens a TCP and TLS connection with a full handshake for every request of a probe: 5
 * per probe (its new controller-runtime client discovers `/api` and `/apis` first); probe-tick
 * did so for its 3 requests until issue 16.
 *
 * Here a probe opens one connection, with a full handshake and the server's certificate verified,
 * for its `/version` request; its Node list and then its Lease list follow on that connection (one
 * socket, one request at a time: probe.ts sends them one after the other, as upstream does); the
 * probe closes it when it ends, after which the agent opens no connection, so none outlives its
 * probe and the next probe of the shoot starts from a new TCP connect and a full TLS handshake
 * again (no session is resumed: maxCachedSessions 0). What upstream's rule guards against, a
 * connection kept from an earlier probe answering for an API server that no longer accepts new
 * ones, cannot happen: each probe's `/version` is the first request on its own new connection.
 * What it saves is two TCP and TLS handshakes per probe (the prober bench's A/B has the way
 * before it, `per-request`, beside the way now). Not done: the retry Go's transport makes of an
 * idempotent request whose reused connection the server closed as it was sent; the lists follow
 * `/version` within milliseconds, far inside any API server's idle timeout.
 *
 * The TLS context (the CA parsed into an OpenSSL context) is built once per kubeconfig object
 * instead of once per connection: probe-tick keeps one parsed kubeconfig per probe Secret
 * resourceVersion (./seedview.ts), so a changed Secret gets a new one. Proxies and plain http are
 * left to client-node (its agent, a connection per request).
 */
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../shared/kube/index.js';
import type { ShootConnection } from './probe.js';

type FetchOptions = Awaited<ReturnType<KubeConfig['applyToFetchOptions']>>;

/** client-node's TLS options of a kubeconfig and the context built from them, once. */
interface SharedTls {
  options: https.AgentOptions;
  secureContext: tls.SecureContext;
}

function sharedTls(contexts: WeakMap<KubeConfig, SharedTls>, kc: KubeConfig, given: https.Agent): SharedTls {
  let shared = contexts.get(kc);
  if (!shared) {
    const options = (given as https.Agent & { options: https.AgentOptions }).options;
    shared = { options, secureContext: tls.createSecureContext(options) };
    contexts.set(kc, shared);
  }
  return shared;
}

/** An https.Agent that opens no connection once closed. */
class ProbeAgent extends https.Agent {
  private closed = false;

  close(): void {
    this.closed = true;
    this.destroy();
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    if (this.closed) {
      // node:_http_agent's createSocket takes the error from the callback (the request fails)
      callback?.(new Error('the probe connection is closed'), undefined as never);
      return undefined;
    }
    return super.createConnection(options, callback);
  }
}

/**
 * `kc` whose requests share one connection (one socket, kept between them, no TLS session
 * resumed) with the kubeconfig's shared TLS context; `close` destroys it, and after it the agent
 * connects no more (a request queued behind one that `close` cut off would otherwise open one).
 */
function probeConnection(
  kc: KubeConfig,
  contexts: WeakMap<KubeConfig, SharedTls>,
): { kubeConfig: KubeConfig; close: () => void } {
  let agent: ProbeAgent | undefined;
  let closed = false;
  const wrapped = Object.create(kc) as KubeConfig;
  wrapped.applyToFetchOptions = async (opts): Promise<FetchOptions> => {
    const init = await kc.applyToFetchOptions(opts);
    const given = init.agent as unknown;
    // exactly client-node's https.Agent (a proxy agent is another class)
    if (!(given instanceof https.Agent) || given.constructor !== https.Agent) return init;
    if (closed) throw new Error('the probe connection is closed');
    if (!agent) {
      const shared = sharedTls(contexts, kc, given);
      agent = new ProbeAgent({
        ...shared.options,
        keepAlive: true,
        maxSockets: 1,
        maxCachedSessions: 0,
        secureContext: shared.secureContext,
      });
    }
    return { ...init, agent };
  };
  return {
    kubeConfig: wrapped,
    close: () => {
      closed = true;
      agent?.close();
    },
  };
}

/** The shoot client factory of probe-tick (ProbeDeps.shootClient): a connection per probe. */
export function shootClientFactory(): (kc: KubeConfig) => ShootConnection {
  const contexts = new WeakMap<KubeConfig, SharedTls>();
  return (kc) => {
    const connection = probeConnection(kc, contexts);
    return { client: createKubeClient(connection.kubeConfig), close: connection.close };
  };
}
