/**
 * The always-on event service for platforms without a Knative Broker (Google Cloud Functions):
 * the event plane (./plane.ts) of one folder of manifests, its ApiServerSources, an in-process
 * Broker per Broker manifest routing by its Triggers exactly as on Knative, and the PingSources
 * whose sink is a Broker (the families' resyncs, ./pings.ts). A Service ref becomes a function
 * URL from a template (./routing.ts); a Broker ref becomes this service's own ingress, which is
 * also where functions send what they emit (their K_SINK).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { FetchLike } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import { loadManifestsOrThrow, type Broker } from '../broker/index.js';
import { loadSourceSpecs, type Service } from '../apiserver-source/service.js';
import { loadBrokerPingSources } from './pings.js';
import { openEventPlane } from './plane.js';
import { parseFunctionUrlTemplate } from './routing.js';

export interface EventServiceOptions {
  /** Folder (searched recursively) with the ApiServerSources, Brokers and Triggers. */
  manifestDir: string;
  kubeConfig: KubeConfig;
  /** Function URL template, `{name}` (and optionally `{namespace}`) filled from the Service ref. */
  functionUrl: string;
  /** Ingress address (default 127.0.0.1 and a free port; Cloud Run: 0.0.0.0 and $PORT). */
  host?: string;
  port?: number;
  /** Dead letters (`dlq/`) and `broker.json` for `npm run dlq`; none kept when undefined. */
  stateDir?: string;
  /** Bearer token for the function URLs (e.g. a Google ID token for private functions). */
  authToken?: string;
  /**
   * Bearer token the ingress requires (and the sources and brokers send it when they post to
   * it); undefined: the ingress is open (behind Cloud Run's own authentication).
   */
  ingressToken?: string;
  logger: Logger;
  fetch?: FetchLike;
}

export interface EventService {
  readonly ingressUrl: string;
  readonly brokers: readonly Broker[];
  readonly sources: Service;
  readonly registry: Registry;
  stop(): Promise<void>;
}

/** Starts the event plane of a folder; every manifest problem is reported before anything runs. */
export async function startEventService(o: EventServiceOptions): Promise<EventService> {
  const functionUrl = parseFunctionUrlTemplate(o.functionUrl);
  const manifests = await loadManifestsOrThrow(o.manifestDir);
  const apiServerSources = await loadSourceSpecs(o.manifestDir);
  const open = await openEventPlane({ host: o.host, port: o.port, ingressToken: o.ingressToken });
  const plane = await open.start({
    manifests: { ...manifests, apiServerSources },
    functionUrl,
    pingSources: async (resolve) => {
      const pings = await loadBrokerPingSources(o.manifestDir, resolve);
      if (pings.problems.length > 0) throw new Error(`${o.manifestDir}: ${pings.problems.join('; ')}`);
      return pings.specs;
    },
    kubeConfig: o.kubeConfig,
    log: o.logger,
    ...(o.stateDir !== undefined ? { stateDir: o.stateDir } : {}),
    ...(o.authToken ? { functionToken: o.authToken } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  o.logger.info('event service ready', {
    ingress: plane.ingressUrl,
    brokers: plane.brokers.map((b) => b.key),
    triggers: manifests.triggers.length,
    sources: apiServerSources.length,
    pingSources: plane.pingSources.map((p) => `${p.namespace}/${p.name}`),
  });
  return {
    ingressUrl: plane.ingressUrl,
    brokers: plane.brokers,
    sources: plane.sources(),
    registry: plane.registry,
    stop: () => plane.stop(),
  };
}
