/**
 * The event plane, assembled in one place for `npm start` (local/knative) and for the Cloud
 * Functions event service (./event-service.ts): the broker ingress, one Broker per Broker
 * manifest routing by the Triggers, the PingSources, the ApiServerSources, and the broker state
 * (`<stateDir>/broker.json` for `npm run dlq`, dead letters in `<stateDir>/dlq/`).
 *
 * Two steps, in the order that makes every address known before anyone needs it, as on Knative
 * where the broker ingress is a Service with an address before any Broker is ready:
 * `openEventPlane` listens (the ingress URL is known: functions get it as their K_SINK),
 * `start` is given where a Service ref goes (the activator, or function URLs) and builds the
 * brokers, the pings and the sources with both addresses fixed. Nothing is patched in later.
 *
 * With an ingress token, every POST to the ingress must carry it, and the brokers (for Broker
 * subscribers), the PingSources and the ApiServerSources send it; without one the ingress is open
 * (Cloud Run's own authentication in front). A function token goes to function URLs only.
 *
 * The PingSources, the ApiServerSources and the brokers (for Broker subscribers) run in this
 * process with the ingress: their events for it are answered here (`RunningIngress.deliveries`:
 * the same checks and answers as over HTTP, token included) without a loopback HTTP request. On
 * Knative the adapters and the ingress are different pods; the functions post over HTTP as there.
 */
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { httpFetch, type FetchLike } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import {
  brokerMetrics,
  createBrokers,
  listenIngress,
  stopBrokers,
  withIngressAuth,
  type Broker,
  type BrokerConfig,
  type BrokerFaults,
  type BrokerMetrics,
  type IngressListener,
  type DestinationRef,
  type Trigger,
} from '../broker/index.js';
import { writeBrokerState } from '../broker/dlq-cli.js';
import { startService, type Service, type ServiceOptions } from '../apiserver-source/service.js';
import type { SourceSpec } from '../apiserver-source/types.js';
import { startPingSources, type PingSourceSpec } from '../ping-source/index.js';
import { routedResolver, sinkFromRefs, withFunctionAuth } from './routing.js';

export interface OpenOptions {
  /** Ingress address (default 127.0.0.1 and a free port; Cloud Run: 0.0.0.0 and $PORT). */
  host?: string;
  port?: number;
  /** The bearer token the ingress requires; undefined: the ingress is open. */
  ingressToken?: string;
}

/** The manifests the plane runs (read by the caller: every knative/ folder, or one folder). */
export interface PlaneManifests {
  brokers: readonly BrokerConfig[];
  triggers: readonly Trigger[];
  apiServerSources: readonly SourceSpec[];
}

export interface StartOptions {
  manifests: PlaneManifests;
  /** Where a Service ref goes: the activator's URL of the function, or a function URL. */
  functionUrl: (namespace: string, name: string) => string | undefined;
  /**
   * The PingSources to run, their sinks resolved by the plane's resolver; may throw (the
   * caller's error for manifest problems): nothing of the plane is left running then.
   */
  pingSources?: (
    resolve: (ref: DestinationRef) => string | undefined,
  ) => PingSourceSpec[] | Promise<PingSourceSpec[]>;
  /** Six-field cron (seconds first) for the PingSources (the embedded landscape's schedules). */
  pingAllowSeconds?: boolean;
  kubeConfig: KubeConfig;
  log: Logger;
  /** The ApiServerSources' logger (default `log`). */
  sourceLog?: Logger;
  /** Dead letters (`dlq/`) and `broker.json`; none kept when undefined. */
  stateDir?: string;
  /** Broker metrics go here, and `GET /metrics` of the ingress serves it (default a new one). */
  registry?: Registry;
  /** Test-only fault switch for every broker and the ingress (off unless set). */
  faults?: BrokerFaults;
  /** Bearer token for function URLs (e.g. a Google ID token for private functions). */
  functionToken?: string;
  /** Default: node:http(s) (shared/events httpFetch), not the global fetch. */
  fetch?: FetchLike;
  /** Passed to every ApiServerSource (tests: reflector timings). */
  sourceOptions?: ServiceOptions['sourceOptions'];
}

export interface EventPlane {
  readonly ingressUrl: string;
  readonly ingressToken: string | undefined;
  readonly brokers: readonly Broker[];
  readonly registry: Registry;
  readonly metrics: BrokerMetrics;
  readonly pingSources: readonly PingSourceSpec[];
  /** The ApiServerSources running now. */
  sources(): Service;
  /** Every ApiServerSource has listed. */
  ready(): Promise<void>;
  /**
   * Stops every ApiServerSource and starts them again, as Knative rolls the adapter Deployment:
   * events of the time between are lost. `downMs`: how long no adapter runs.
   */
  restartSources(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The ingress listening, nothing routed yet (requests are answered 503 until `start`). */
export interface OpenEventPlane {
  readonly ingressUrl: string;
  readonly ingressToken: string | undefined;
  start(o: StartOptions): Promise<EventPlane>;
  close(): Promise<void>;
}

type Stopper = () => Promise<void>;

async function unwind(stoppers: Stopper[]): Promise<void> {
  for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined);
}

export async function openEventPlane(o: OpenOptions = {}): Promise<OpenEventPlane> {
  const listener = await listenIngress({ host: o.host, port: o.port });
  const token = o.ingressToken || undefined;
  return {
    ingressUrl: listener.url,
    ingressToken: token,
    close: () => listener.close(),
    start: async (s) => {
      const stoppers: Stopper[] = [() => listener.close()];
      try {
        return await assemble(listener, token, s, stoppers);
      } catch (err) {
        await unwind(stoppers);
        throw err;
      }
    },
  };
}

async function assemble(
  listener: IngressListener,
  token: string | undefined,
  s: StartOptions,
  stoppers: Stopper[],
): Promise<EventPlane> {
  const ingressUrl = listener.url;
  const resolve = routedResolver(s.functionUrl, ingressUrl);
  const registry = s.registry ?? new Registry();
  const metrics = brokerMetrics(registry);
  const base: FetchLike = s.fetch ?? httpFetch;
  // the sources' and brokers' events for the ingress are answered in this process (the ingress
  // is served below, after the brokers it routes to exist); anything else goes to `base`
  let toIngress: FetchLike = base;
  const viaIngress: FetchLike = (url, init) => toIngress(url, init);
  // whoever posts to the ingress (sources; brokers for Broker subscribers) sends its token
  const ingressFetch = withIngressAuth(viaIngress, token, ingressUrl);
  const brokers = createBrokers({
    ...s.manifests,
    ingressUrl,
    resolve,
    metrics,
    log: s.log,
    fetch: withFunctionAuth(ingressFetch, s.functionToken, ingressUrl),
    ...(s.stateDir !== undefined ? { stateDir: s.stateDir } : {}),
    ...(s.faults ? { faults: s.faults } : {}),
  });
  const ingress = listener.serve({
    brokers,
    registry,
    metrics,
    token,
    ...(s.faults ? { faults: s.faults } : {}),
  });
  toIngress = ingress.deliveries(base);
  stoppers[0] = () => stopBrokers(ingress, brokers);
  if (s.stateDir !== undefined)
    await writeBrokerState(join(s.stateDir, 'broker.json'), {
      ingressUrl,
      ...(token ? { ingressToken: token } : {}),
    });
  const pingSpecs = s.pingSources ? await s.pingSources(resolve) : [];
  const pings = startPingSources(
    pingSpecs,
    { log: s.log, fetch: ingressFetch },
    s.pingAllowSeconds ? { allowSeconds: true } : undefined,
  );
  stoppers.push(() => pings.stop());
  const startSources = (): Promise<Service> =>
    startService({
      specs: s.manifests.apiServerSources,
      kubeConfig: s.kubeConfig,
      logger: s.sourceLog ?? s.log,
      resolveSink: sinkFromRefs(resolve),
      sourceOptions: { ...s.sourceOptions, fetch: ingressFetch },
    });
  let sources = await startSources();
  stoppers.push(() => sources.stop());
  return {
    ingressUrl,
    ingressToken: token,
    brokers,
    registry,
    metrics,
    pingSources: pingSpecs,
    sources: () => sources,
    ready: () => sources.ready,
    restartSources: async (downMs = 0) => {
      // as Knative rolls the adapter's Deployment: the old adapter is gone before the new one
      // lists, so whatever changes in between is never sent
      await sources.stop();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      sources = await startSources();
      await sources.ready;
    },
    stop: () => unwind(stoppers),
  };
}
