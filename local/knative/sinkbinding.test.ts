import type { FunctionService } from '../activator/services.js';
import {
  applySinkBindings,
  bind,
  brokerAddress,
  parseSinkBinding,
  selects,
  undo,
  type SinkBinding,
} from './sinkbinding.js';

const BROKERS = new Set(['ls/default']);
const SINK = 'http://broker-ingress.knative-eventing.svc.cluster.local/ls/default';

function doc(spec: Record<string, unknown>, namespace = 'ls'): Record<string, unknown> {
  return {
    apiVersion: 'sources.knative.dev/v1',
    kind: 'SinkBinding',
    metadata: { name: 'sb', namespace },
    spec,
  };
}
const SUBJECT = { apiVersion: 'serving.knative.dev/v1', kind: 'Service' };
const BROKER = { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'default' } };

function fn(name: string, env: FunctionService['env'] = []): FunctionService {
  return {
    name,
    namespace: 'ls',
    revision: `${name}-00001`,
    containerConcurrency: 1,
    maxScale: 1,
    minScale: 0,
    target: 1,
    windowMs: 60_000,
    timeoutSeconds: 60,
    env,
  };
}
const v = (value: string): { kind: 'value'; value: string } => ({ kind: 'value', value });

describe('parseSinkBinding', () => {
  it.each<[string, Record<string, unknown>, Partial<SinkBinding> | RegExp]>([
    [
      'a selector and a Broker ref (the Broker in the binding namespace)',
      doc({ subject: { ...SUBJECT, selector: { matchLabels: { emits: 'true' } } }, sink: BROKER }),
      {
        sinkUri: SINK,
        ceOverrides: '',
        subject: { ...SUBJECT, selector: { matchLabels: { emits: 'true' } } },
      },
    ],
    [
      'a name, an absolute uri and ceOverrides',
      doc({
        subject: { ...SUBJECT, name: 'a' },
        sink: { uri: 'http://elsewhere.example/x' },
        ceOverrides: { extensions: { team: 'x' } },
      }),
      { sinkUri: 'http://elsewhere.example/x', ceOverrides: '{"extensions":{"team":"x"}}' },
    ],
    [
      'both name and selector',
      doc({ subject: { ...SUBJECT, name: 'a', selector: {} }, sink: BROKER }),
      /exactly one of name and selector/,
    ],
    [
      'neither name nor selector',
      doc({ subject: SUBJECT, sink: BROKER }),
      /exactly one of name and selector/,
    ],
    [
      'no kind',
      doc({ subject: { apiVersion: 'v1', name: 'a' }, sink: BROKER }),
      /apiVersion and kind are required/,
    ],
    [
      'a subject in another namespace (sinkbinding_validation.go)',
      doc({ subject: { ...SUBJECT, name: 'a', namespace: 'other' }, sink: BROKER }),
      /spec\.subject\.namespace: must be the binding's own \(ls\)/,
    ],
    [
      'a Broker that is not there',
      doc({ subject: { ...SUBJECT, name: 'a' }, sink: { ref: { ...BROKER.ref, name: 'nope' } } }),
      /Broker ls\/nope is not in the manifests/,
    ],
    [
      'a relative uri without ref',
      doc({ subject: { ...SUBJECT, name: 'a' }, sink: { uri: '/x' } }),
      /needs a ref or an absolute uri/,
    ],
    [
      'a ref to something else than a Broker',
      doc({
        subject: { ...SUBJECT, name: 'a' },
        sink: { ref: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'x' } },
      }),
      /resolves Broker refs/,
    ],
  ])('%s', (_name, d, want) => {
    const r = parseSinkBinding(d, BROKERS);
    if (want instanceof RegExp) {
      expect(r.binding).toBeUndefined();
      expect(r.problems).toEqual(expect.arrayContaining([expect.stringMatching(want)]));
      expect(r.problems[0]).toMatch(/^SinkBinding ls\/sb: /);
    } else {
      expect(r.problems).toEqual([]);
      expect(r.binding).toMatchObject(want);
    }
  });

  it('brokerAddress is the MT broker ingress path', () => {
    expect(brokerAddress('ls', 'default')).toBe(SINK);
  });
});

describe('selects, Do and Undo', () => {
  const bySelector = parseSinkBinding(
    doc({ subject: { ...SUBJECT, selector: { matchLabels: { emits: 'true' } } }, sink: BROKER }),
    BROKERS,
  ).binding!;
  const byName = parseSinkBinding(
    doc({ subject: { ...SUBJECT, name: 'b' }, sink: BROKER }),
    BROKERS,
  ).binding!;

  it.each<[string, SinkBinding, FunctionService, Record<string, string> | undefined, boolean]>([
    ['labels match', bySelector, fn('a'), { emits: 'true' }, true],
    ['labels differ', bySelector, fn('a'), { emits: 'false' }, false],
    ['no labels', bySelector, fn('a'), undefined, false],
    ['by name', byName, fn('b'), undefined, true],
    ['another name', byName, fn('a'), { emits: 'true' }, false],
    ['another namespace', bySelector, { ...fn('a'), namespace: 'other' }, { emits: 'true' }, false],
    [
      'a subject kind that is not a Knative Service',
      { ...byName, subject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'b' } },
      fn('b'),
      undefined,
      false,
    ],
  ])('%s', (_name, b, s, labels, want) => {
    expect(selects(b, s, labels)).toBe(want);
  });

  it('Do undoes first: a K_SINK of its own, K_CE_OVERRIDES and K_CA_CERTS are replaced, the rest kept in order', () => {
    const s = fn('a', [
      { name: 'K_SINK', from: v('http://old') },
      { name: 'CONFIG_FILE', from: v('/etc/x') },
      { name: 'K_CA_CERTS', from: v('pem') },
      { name: 'K_CE_OVERRIDES', from: v('{}') },
    ]);
    expect(bind(s, bySelector).env).toEqual([
      { name: 'CONFIG_FILE', from: v('/etc/x') },
      { name: 'K_SINK', from: v(SINK) },
      { name: 'K_CE_OVERRIDES', from: v('') },
    ]);
    expect(undo(bind(s, bySelector).env)).toEqual([{ name: 'CONFIG_FILE', from: v('/etc/x') }]);
  });

  it('applySinkBindings: bound when selected, untouched when not, a problem when selected twice', () => {
    const labels: Record<string, Record<string, string>> = { a: { emits: 'true' }, b: { emits: 'true' } };
    const r = applySinkBindings([fn('a'), fn('b'), fn('c')], (s) => labels[s.name], [
      bySelector,
      { ...byName, name: 'sb2' },
    ]);
    expect(r.services.map((s) => s.env.map((e) => e.name))).toEqual([['K_SINK', 'K_CE_OVERRIDES'], [], []]);
    expect(r.problems).toEqual(['Service ls/b: selected by several SinkBindings (sb, sb2)']);
  });
});
