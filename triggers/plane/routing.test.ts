import {
  FunctionUrlTemplateError,
  parseFunctionUrlTemplate,
  routedResolver,
  sinkFromRefs,
  withFunctionAuth,
} from './routing.js';
import type { SourceSpec } from '../apiserver-source/types.js';
import type { FetchLike } from '../../shared/events/index.js';
import { withIngressAuth } from '../broker/index.js';

describe('parseFunctionUrlTemplate', () => {
  it.each([
    [
      'https://europe-west1-p.cloudfunctions.net/{name}',
      'ns',
      'deployer-mock',
      'https://europe-west1-p.cloudfunctions.net/deployer-mock',
    ],
    [
      'http://127.0.0.1:8080/{namespace}/{name}',
      'landscape-system',
      'x',
      'http://127.0.0.1:8080/landscape-system/x',
    ],
    ['https://{name}-abc.a.run.app/', 'ns', 'weeder', 'https://weeder-abc.a.run.app/'],
  ])('%s renders %s/%s as %s', (template, ns, name, want) => {
    expect(parseFunctionUrlTemplate(template)(ns, name)).toBe(want);
  });

  it.each([
    ['https://example.com/fn', 'must contain {name}'],
    ['not a url {name}', 'is not a URL once {name} is filled in'],
    ['ftp://example.com/{name}', 'scheme ftp: is not http or https'],
  ])('rejects %s: %s', (template, problem) => {
    expect(() => parseFunctionUrlTemplate(template)).toThrow(FunctionUrlTemplateError);
    expect(() => parseFunctionUrlTemplate(template)).toThrow(problem);
  });
});

describe('routedResolver', () => {
  const resolve = routedResolver((ns, name) => `https://fn/${ns}/${name}`, 'http://127.0.0.1:9000');
  it.each([
    [{ kind: 'Service', name: 'a', namespace: 'x' }, 'https://fn/x/a'],
    [{ kind: 'Service', name: 'a' }, 'https://fn/default/a'],
    [{ kind: 'Broker', name: 'default', namespace: 'x' }, 'http://127.0.0.1:9000/x/default'],
    [{ kind: 'Channel', name: 'c', namespace: 'x' }, undefined],
  ])('%j → %s', (ref, want) => {
    expect(resolve(ref)).toBe(want);
  });
});

describe('sinkFromRefs', () => {
  const resolve = routedResolver((_ns, name) => `https://fn/${name}`, 'http://ingress');
  const spec = (sink: Partial<SourceSpec>): SourceSpec =>
    ({ id: 'ns/src', namespace: 'ns', ...sink }) as SourceSpec;
  it.each([
    [{ sinkRef: { kind: 'Broker', name: 'default' } }, 'http://ingress/ns/default'],
    [{ sinkRef: { kind: 'Service', name: 'f', namespace: 'other' } }, 'https://fn/f'],
    [{ sinkRef: { kind: 'Service', name: 'f' }, sinkUri: 'sub/path' }, 'https://fn/f/sub/path'],
    [{ sinkUri: 'http://direct/' }, 'http://direct/'],
  ])('%j → %s', (sink, want) => {
    expect(sinkFromRefs(resolve)(spec(sink))).toBe(want);
  });
  it('names the source whose sink cannot be resolved', () => {
    expect(() => sinkFromRefs(resolve)(spec({ sinkRef: { kind: 'Channel', name: 'c' } }))).toThrow(
      'ApiServerSource ns/src: sink Channel/c cannot be resolved',
    );
    expect(() => sinkFromRefs(resolve)(spec({}))).toThrow('ApiServerSource ns/src: no sink');
  });
});

describe('withFunctionAuth', () => {
  const seen: Array<[string, string | null]> = [];
  const base: FetchLike = (url, init) => {
    seen.push([url, new Headers(init.headers).get('authorization')]);
    return Promise.resolve(new Response(null, { status: 202 }));
  };
  beforeEach(() => seen.splice(0));

  it('sends the token to functions, not to the own ingress, and keeps the other headers', async () => {
    const f = withFunctionAuth(base, 'tok', 'http://ingress');
    await f('https://fn/a', { method: 'POST', headers: { 'ce-id': '1' } });
    await f('http://ingress/ns/default', { method: 'POST', headers: { 'ce-id': '2' } });
    expect(seen).toEqual([
      ['https://fn/a', 'Bearer tok'],
      ['http://ingress/ns/default', null],
    ]);
  });
  it('is the plain fetch without a token', () => {
    expect(withFunctionAuth(base, undefined, 'x')).toBe(base);
  });
  it('with withIngressAuth below it: the ingress gets its own token, functions theirs, others none', async () => {
    const ingress = 'http://127.0.0.1:9000';
    const f = withFunctionAuth(withIngressAuth(base, 'ingress-tok', ingress), 'fn-tok', ingress);
    await f('https://fn/a', { method: 'POST', headers: { 'ce-id': '1' } });
    await f('http://127.0.0.1:9000/ns/default', { method: 'POST', headers: { 'ce-id': '2' } });
    const ingressOnly = withIngressAuth(base, 'ingress-tok', ingress);
    await ingressOnly('http://127.0.0.1:9001/', { method: 'POST' });
    await ingressOnly('http://example.com:9000/ns/default', { method: 'POST' });
    expect(seen).toEqual([
      ['https://fn/a', 'Bearer fn-tok'],
      ['http://127.0.0.1:9000/ns/default', 'Bearer ingress-tok'],
      ['http://127.0.0.1:9001/', null],
      ['http://example.com:9000/ns/default', null],
    ]);
    expect(withIngressAuth(base, undefined, ingress)).toBe(base);
  });
});
