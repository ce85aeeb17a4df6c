/**
 * The always-on event service for platforms without a Knative Broker (Google Cloud Functions):
 * the ApiServerSources of a folder, plus an in-process Broker per Broker manifest of the same
 * folder, routing by its Triggers exactly as on Knative. A Trigger's subscriber `ref`
 * `{kind: Service, name}` becomes a function URL from a template
 * (`https://europe-west1-my-project.cloudfunctions.net/{name}`); a `ref` to a Broker becomes this
 * service's own ingress, which is also where functions send what they emit (their K_SINK).
 *
 * The pure parts (`parseFunctionUrlTemplate`, `routedResolver`, `sinkFromRefs`) are table-tested;
 * `startRoutedService` wires them to the broker, the ingress and the sources, and runs the
 * PingSources whose sink is a Broker (the families' resyncs, ./routed-pings.ts).
 */
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import type { FetchLike } from '../../shared/events/index.js';
import type { Logger } from '../../shared/log/index.js';
import {
  brokerMetrics,
  createBrokers,
  loadManifestsOrThrow,
  startIngress,
  stopBrokers,
  withIngressAuth,
  type Broker,
  type DestinationRef,
} from '../broker/index.js';
import { writeBrokerState } from '../broker/dlq-cli.js';
import { startPingSources } from '../ping-source/index.js';
import { loadSourceSpecs, startService, type Service } from './main.js';
import { loadBrokerPingSources } from './routed-pings.js';
import type { SinkResolver } from './source.js';
import type { SourceSpec } from './types.js';

export class FunctionUrlTemplateError extends Error {
  constructor(template: string, problem: string) {
    super(`--function-url ${JSON.stringify(template)}: ${problem}`);
    this.name = 'FunctionUrlTemplateError';
  }
}

/** Checks a function URL template (`{name}` required, `{namespace}` optional, http(s) only). */
export function parseFunctionUrlTemplate(template: string): (namespace: string, name: string) => string {
  if (!template.includes('{name}')) throw new FunctionUrlTemplateError(template, 'must contain {name}');
  const render = (namespace: string, name: string): string =>
    template
      .replaceAll('{name}', encodeURIComponent(name))
      .replaceAll('{namespace}', encodeURIComponent(namespace));
  let url: URL;
  try {
    url = new URL(render('ns', 'fn'));
  } catch {
    throw new FunctionUrlTemplateError(template, 'is not a URL once {name} is filled in');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FunctionUrlTemplateError(template, `scheme ${url.protocol} is not http or https`);
  }
  return render;
}

/** Service refs → function URLs; Broker refs → this service's ingress; anything else unresolved. */
export function routedResolver(
  functionUrl: (namespace: string, name: string) => string | undefined,
  ingressUrl: () => string,
): (ref: DestinationRef) => string | undefined {
  return (ref) => {
    const namespace = ref.namespace ?? 'default';
    if (ref.kind === 'Service') return functionUrl(namespace, ref.name);
    if (ref.kind === 'Broker') return `${ingressUrl()}/${namespace}/${ref.name}`;
    return undefined;
  };
}

/** An ApiServerSource's sink through a ref resolver (`sink.uri` relative to the ref when both). */
export function sinkFromRefs(resolve: (ref: DestinationRef) => string | undefined): SinkResolver {
  return (spec: SourceSpec) => {
    const ref = spec.sinkRef;
    if (!ref?.kind || !ref.name) {
      if (spec.sinkUri) return spec.sinkUri;
      throw new Error(`ApiServerSource ${spec.id}: no sink`);
    }
    const url = resolve({ kind: ref.kind, name: ref.name, namespace: ref.namespace ?? spec.namespace });
    if (url === undefined)
      throw new Error(`ApiServerSource ${spec.id}: sink ${ref.kind}/${ref.name} cannot be resolved`);
    return spec.sinkUri ? new URL(spec.sinkUri, `${url}/`).toString() : url;
  };
}

/**
 * Adds `Authorization: Bearer <token>` to requests for function URLs (not to the own ingress,
 * which has a token of its own: `withIngressAuth`).
 */
export function withFunctionAuth(
  fetchImpl: FetchLike,
  token: string | undefined,
  ingressUrl: () => string,
): FetchLike {
  if (!token) return fetchImpl;
  return (url, init) => {
    if (url.startsWith(`${ingressUrl()}/`)) return fetchImpl(url, init);
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetchImpl(url, { ...init, headers });
  };
}

export interface RoutedServiceOptions {
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

export interface RoutedService {
  readonly ingressUrl: string;
  readonly brokers: readonly Broker[];
  readonly sources: Service;
  readonly registry: Registry;
  stop(): Promise<void>;
}

/** Starts brokers, ingress and sources; every manifest problem is reported before anything runs. */
export async function startRoutedService(o: RoutedServiceOptions): Promise<RoutedService> {
  const functionUrl = parseFunctionUrlTemplate(o.functionUrl);
  const manifests = await loadManifestsOrThrow(o.manifestDir);
  const specs = await loadSourceSpecs(o.manifestDir);
  const urls = { ingress: '' };
  const resolve = routedResolver(functionUrl, () => urls.ingress);
  const registry = new Registry();
  const baseFetch: FetchLike = o.fetch ?? ((url, init) => fetch(url, init));
  const ingressFetch = withIngressAuth(baseFetch, o.ingressToken, () => urls.ingress);
  const brokers = createBrokers({
    ...manifests,
    resolve,
    metrics: brokerMetrics(registry),
    log: o.logger,
    fetch: withFunctionAuth(ingressFetch, o.authToken, () => urls.ingress),
    ...(o.stateDir !== undefined ? { stateDir: o.stateDir } : {}),
  });
  const token = o.ingressToken;
  const ingress = await startIngress({ brokers, registry, host: o.host, port: o.port, token });
  urls.ingress = ingress.url;
  if (o.stateDir !== undefined)
    await writeBrokerState(join(o.stateDir, 'broker.json'), {
      ingressUrl: ingress.url,
      ...(token ? { ingressToken: token } : {}),
    });
  const pings = await loadBrokerPingSources(o.manifestDir, resolve);
  if (pings.problems.length > 0) {
    await stopBrokers(ingress, brokers);
    throw new Error(`${o.manifestDir}: ${pings.problems.join('; ')}`);
  }
  // the families' resyncs (PingSources whose sink is a Broker): run here, fanned out by the Triggers
  const pingSources = startPingSources(pings.specs, { fetch: ingressFetch, log: o.logger });
  let sources: Service;
  try {
    sources = await startService({
      specs,
      kubeConfig: o.kubeConfig,
      logger: o.logger,
      resolveSink: sinkFromRefs(resolve),
      ...(token ? { sourceOptions: { fetch: ingressFetch } } : {}),
    });
  } catch (err) {
    await pingSources.stop();
    await stopBrokers(ingress, brokers);
    throw err;
  }
  o.logger.info('event service ready', {
    ingress: ingress.url,
    brokers: brokers.map((b) => b.key),
    triggers: manifests.triggers.length,
    sources: specs.length,
    pingSources: pings.specs.map((p) => `${p.namespace}/${p.name}`),
  });
  return {
    ingressUrl: ingress.url,
    brokers,
    sources,
    registry,
    stop: async () => {
      await pingSources.stop();
      await sources.stop();
      await stopBrokers(ingress, brokers);
    },
  };
}
