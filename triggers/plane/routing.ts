/**
 * How the event plane routes (pure, table-tested): a Trigger's or a source's subscriber `ref`
 * `{kind: Service, name}` becomes a function URL (the activator's under `npm start`; on Google
 * Cloud Functions one from a template, `https://europe-west1-my-project.cloudfunctions.net/{name}`),
 * a `ref` to a Broker becomes the plane's own ingress, which is also where functions send what
 * they emit (their K_SINK). Function URLs may need a bearer token of their own.
 */
import { plainHeaders, type FetchLike } from '../../shared/events/index.js';
import type { DestinationRef } from '../broker/index.js';
import type { SinkResolver } from '../apiserver-source/source.js';
import type { SourceSpec } from '../apiserver-source/types.js';

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
  ingressUrl: string,
): (ref: DestinationRef) => string | undefined {
  return (ref) => {
    const namespace = ref.namespace ?? 'default';
    if (ref.kind === 'Service') return functionUrl(namespace, ref.name);
    if (ref.kind === 'Broker') return `${ingressUrl}/${namespace}/${ref.name}`;
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
  ingressUrl: string,
): FetchLike {
  if (!token) return fetchImpl;
  return (url, init) => {
    if (url.startsWith(`${ingressUrl}/`)) return fetchImpl(url, init);
    return fetchImpl(url, {
      ...init,
      headers: { ...plainHeaders(init.headers), authorization: `Bearer ${token}` },
    });
  };
}
