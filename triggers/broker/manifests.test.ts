import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIsoDuration, parseIsoDuration } from './duration.js';
import { loadManifests, loadManifestsOrThrow, ManifestError, parseManifests } from './manifests.js';

const GOOD = `
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: { name: mock-deployer, namespace: ls-system }
spec:
  broker: default
  filter:
    attributes: { type: dev.landscape.deployitem.reconcile, deployertype: mock }
  subscriber:
    ref: { apiVersion: serving.knative.dev/v1, kind: Service, name: mock-deployer }
  delivery:
    retry: 3
    backoffPolicy: exponential
    backoffDelay: PT0.5S
    timeout: PT10S
    deadLetterSink: { uri: http://dlq.local/ }
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: { name: mock-deployer }
---
apiVersion: eventing.knative.dev/v1
kind: Broker
metadata: { name: default, namespace: ls-system }
spec:
  delivery: { retry: 1 }
---
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: { name: resync }
spec:
  broker: default
  filters:
    - any:
        - exact: { type: dev.landscape.resync }
        - not: { prefix: { type: dev.knative. } }
  subscriber: { uri: http://127.0.0.1:9/ }
`;

describe('parseManifests', () => {
  it('reads Triggers and Brokers, skips other kinds', () => {
    const set = parseManifests(GOOD, 'eventing.yaml');
    expect(set.problems).toEqual([]);
    expect(set.brokers).toEqual([
      { name: 'default', namespace: 'ls-system', delivery: { retry: 1 }, file: 'eventing.yaml' },
    ]);
    expect(set.triggers.map((t) => `${t.namespace}/${t.name}`)).toEqual([
      'ls-system/mock-deployer',
      'default/resync',
    ]);
    expect(set.triggers[0]).toMatchObject({
      broker: 'default',
      attributes: { type: 'dev.landscape.deployitem.reconcile', deployertype: 'mock' },
      subscriber: { ref: { kind: 'Service', name: 'mock-deployer' } },
      delivery: { retry: 3, backoffPolicy: 'exponential', backoffDelay: 'PT0.5S', timeout: 'PT10S' },
    });
    expect(set.triggers[1].filters).toHaveLength(1);
  });

  const trigger = (spec: string): string =>
    `apiVersion: eventing.knative.dev/v1\nkind: Trigger\nmetadata: { name: t }\nspec:\n${spec}`;
  it.each([
    ['no broker', trigger('  subscriber: { uri: http://x/ }'), /Trigger t: spec.broker/],
    ['no subscriber', trigger('  broker: b'), /spec.subscriber/],
    [
      'subscriber without ref or uri',
      trigger('  broker: b\n  subscriber: {}'),
      /either ref or uri is required/,
    ],
    [
      'cesql',
      trigger('  broker: b\n  subscriber: { uri: http://x/ }\n  filters: [ { cesql: "type = \'x\'" } ]'),
      /spec.filters.0.cesql: CESQL filters are not supported/,
    ],
    [
      'two dialects in one filter',
      trigger(
        '  broker: b\n  subscriber: { uri: http://x/ }\n  filters: [ { exact: { type: a }, prefix: { type: b } } ]',
      ),
      /exactly one of exact, prefix, suffix, all, any, not, cesql expected, found exact, prefix/,
    ],
    [
      'two attributes in exact',
      trigger(
        '  broker: b\n  subscriber: { uri: http://x/ }\n  filters: [ { exact: { type: a, source: b } } ]',
      ),
      /spec.filters.0.exact: exactly one attribute and value expected/,
    ],
    [
      'bad attribute name deep inside',
      trigger(
        '  broker: b\n  subscriber: { uri: http://x/ }\n  filters: [ { all: [ { not: { suffix: { Bad_Name: x } } } ] } ]',
      ),
      /spec.filters.0.all.0.not.suffix.Bad_Name: attribute names are lowercase letters and digits only/,
    ],
    [
      'bad backoff policy',
      trigger('  broker: b\n  subscriber: { uri: http://x/ }\n  delivery: { backoffPolicy: random }'),
      /spec.delivery.backoffPolicy/,
    ],
    [
      'bad backoff delay',
      trigger('  broker: b\n  subscriber: { uri: http://x/ }\n  delivery: { backoffDelay: 5s }'),
      /spec.delivery.backoffDelay: not an ISO-8601 duration/,
    ],
    [
      'negative retry',
      trigger('  broker: b\n  subscriber: { uri: http://x/ }\n  delivery: { retry: -1 }'),
      /spec.delivery.retry/,
    ],
    [
      'wrong apiVersion',
      trigger('  broker: b\n  subscriber: { uri: http://x/ }').replace('/v1', '/v1beta1'),
      /apiVersion/,
    ],
    ['YAML syntax', 'kind: Trigger\nmetadata: { name: [', /bad.yaml: document 1:/],
  ])('reports %s with the file name', (_name, text, message) => {
    const { problems, triggers } = parseManifests(text, 'bad.yaml');
    expect(triggers).toEqual([]);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith('bad.yaml: '))).toBe(true);
    expect(problems.join('\n')).toMatch(message);
  });
});

describe('loadManifests', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'triggers-'));
    await mkdir(join(dir, 'family', 'nested'), { recursive: true });
    await writeFile(join(dir, 'family', 'eventing.yaml'), GOOD);
    await writeFile(
      join(dir, 'family', 'nested', 'more.yml'),
      GOOD.split('---')[3].replace('resync', 'other'),
    );
    await writeFile(join(dir, 'family', 'nested', 'notes.txt'), 'not yaml');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads every *.yaml / *.yml under the folder', async () => {
    const set = await loadManifests(dir);
    expect(set.problems).toEqual([]);
    expect(set.triggers.map((t) => [t.name, t.file])).toEqual([
      ['mock-deployer', 'family/eventing.yaml'],
      ['resync', 'family/eventing.yaml'],
      ['other', 'family/nested/more.yml'],
    ]);
  });

  it('lists every problem, duplicates included', async () => {
    await writeFile(
      join(dir, 'dup.yaml'),
      GOOD.split('---')[3] +
        '\n---\nkind: Trigger\napiVersion: eventing.knative.dev/v1\nmetadata: { name: x }\nspec: {}',
    );
    const set = await loadManifests(dir);
    expect(set.problems).toEqual([
      expect.stringMatching(/^dup.yaml: Trigger x: spec.broker/),
      expect.stringMatching(/^dup.yaml: Trigger x: spec.subscriber/),
      'family/eventing.yaml: Trigger default/resync: also defined in dup.yaml',
    ]);
    await expect(loadManifestsOrThrow(dir)).rejects.toThrow(ManifestError);
    await rm(join(dir, 'dup.yaml'));
  });
});

describe('ISO-8601 durations', () => {
  it.each([
    ['PT0.5S', 500],
    ['PT1S', 1000],
    ['PT2.5S', 2500],
    ['PT1M', 60_000],
    ['PT1H30M', 5_400_000],
    ['P1D', 86_400_000],
    ['P1DT1S', 86_401_000],
    ['PT0,25S', 250],
  ])('%s = %i ms', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms);
  });
  it.each(['5s', 'P', 'PT', '1S', 'PTS', ''])('rejects %p', (text) => {
    expect(isIsoDuration(text)).toBe(false);
    expect(() => parseIsoDuration(text)).toThrow(/not an ISO-8601 duration/);
  });
});
