import { brokerPingSources } from './pings.js';

const ping = (name: string, ref: string): string => `apiVersion: sources.knative.dev/v1
kind: PingSource
metadata: {name: ${name}, namespace: landscape-system}
spec:
  schedule: "*/5 * * * *"
  data: '{"job":"resync"}'
  sink:
    ref: {apiVersion: x/v1, ${ref}}
`;

const resolve = (ref: { kind: string; name: string; namespace?: string }): string | undefined =>
  ref.kind === 'Broker' ? `http://ingress/${ref.namespace}/${ref.name}` : undefined;

describe('brokerPingSources', () => {
  it('keeps the PingSources whose sink is a Broker, with their Knative schedule', () => {
    const text = [
      ping('deployers-resync', 'kind: Broker, name: default'),
      ping('requeue-tick', 'kind: Service, name: requeue-tick'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n',
    ].join('---\n');
    const r = brokerPingSources(text, resolve);
    expect(r.problems).toEqual([]);
    expect(r.specs.map((s) => [s.name, s.schedule, s.sink])).toEqual([
      ['deployers-resync', '*/5 * * * *', 'http://ingress/landscape-system/default'],
    ]);
  });

  it('reports a Broker it cannot resolve, and a seconds schedule (Knative has none)', () => {
    const r = brokerPingSources(
      ping('a', 'kind: Broker, name: default').replace('"*/5 * * * *"', '"*/5 * * * * *"'),
      () => undefined,
    );
    expect(r.specs).toEqual([]);
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems.join(' ')).toMatch(/landscape-system\/a/);
  });
});
