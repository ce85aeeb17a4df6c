import { changeEvent, guessPlural, subjectFor } from './events.js';
import type { EventContext } from './events.js';

const ctx = (over: Partial<EventContext> = {}): EventContext => ({
  source: 'https://10.96.0.1:443',
  mode: 'Reference',
  newId: () => 'id-1',
  now: () => new Date('2024-01-02T03:04:05.000Z'),
  ...over,
});

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'unit', namespace: 'test', resourceVersion: '7' },
};

describe('guessPlural (apimachinery UnsafeGuessKindToResource)', () => {
  it.each([
    ['Pod', 'pods'],
    ['Ingress', 'ingresses'],
    ['NetworkPolicy', 'networkpolicies'],
    ['Endpoints', 'endpoints'],
    ['DeployItem', 'deployitems'],
    ['ManagedSeedSet', 'managedseedsets'],
    ['Gateway', 'gatewaies'],
    ['', ''],
  ])('%s → %s', (kind, plural) => expect(guessPlural(kind)).toBe(plural));
});

describe('subjectFor (Knative createSelfLink)', () => {
  it.each([
    [
      'core kind uses /apis/v1',
      { apiVersion: 'v1', kind: 'Pod', namespace: 'test', name: 'unit' },
      '/apis/v1/namespaces/test/pods/unit',
    ],
    [
      'group kind',
      { apiVersion: 'landscaper.gardener.cloud/v1alpha1', kind: 'DeployItem', namespace: 'ns', name: 'di' },
      '/apis/landscaper.gardener.cloud/v1alpha1/namespaces/ns/deployitems/di',
    ],
    [
      'cluster-scoped keeps an empty namespace segment',
      { apiVersion: 'v1', kind: 'Node', namespace: '', name: 'n1' },
      '/apis/v1/namespaces//nodes/n1',
    ],
    [
      'a group without a version',
      { apiVersion: 'serving.knative.dev', kind: 'Revision', namespace: 'a', name: 'r' },
      '/apis/serving.knative.dev/versionUnknown/namespaces/a/revisions/r',
    ],
  ])('%s', (_name, ref, subject) => expect(subjectFor(ref)).toBe(subject));
});

describe('changeEvent', () => {
  it.each([
    ['Reference', 'add', 'dev.knative.apiserver.ref.add'],
    ['Reference', 'update', 'dev.knative.apiserver.ref.update'],
    ['Reference', 'delete', 'dev.knative.apiserver.ref.delete'],
    ['Resource', 'add', 'dev.knative.apiserver.resource.add'],
    ['Resource', 'update', 'dev.knative.apiserver.resource.update'],
    ['Resource', 'delete', 'dev.knative.apiserver.resource.delete'],
  ] as const)('%s %s → %s', (mode, action, type) => {
    const e = changeEvent(ctx({ mode }), {
      action,
      object: pod,
      resource: { apiVersion: 'v1', kind: 'Pod' },
    });
    expect(e.attributes).toEqual({
      specversion: '1.0',
      id: 'id-1',
      source: 'https://10.96.0.1:443',
      type,
      subject: '/apis/v1/namespaces/test/pods/unit',
      time: '2024-01-02T03:04:05.000Z',
      datacontenttype: 'application/json',
      kind: 'Pod',
      apiversion: 'v1',
      name: 'unit',
      namespace: 'test',
    });
  });

  it('Reference data is an ObjectReference in Go field order', () => {
    const e = changeEvent(ctx(), { action: 'add', object: pod, resource: { apiVersion: 'v1', kind: 'Pod' } });
    expect(JSON.stringify(e.data)).toBe('{"kind":"Pod","namespace":"test","name":"unit","apiVersion":"v1"}');
  });

  it('Reference data of a cluster-scoped object leaves namespace out; the extension is empty', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    const e = changeEvent(ctx(), {
      action: 'update',
      object: node,
      resource: { apiVersion: 'v1', kind: 'Node' },
    });
    expect(e.data).toEqual({ kind: 'Node', name: 'n1', apiVersion: 'v1' });
    expect(e.attributes.namespace).toBe('');
    expect(e.attributes.subject).toBe('/apis/v1/namespaces//nodes/n1');
  });

  it('Resource data is the object itself', () => {
    const e = changeEvent(ctx({ mode: 'Resource' }), {
      action: 'delete',
      object: pod,
      resource: { apiVersion: 'v1', kind: 'Pod' },
    });
    expect(e.data).toBe(pod);
  });

  it('ceOverrides extensions are set last and win', () => {
    const e = changeEvent(ctx({ extensions: { env: 'prod', kind: 'Other' } }), {
      action: 'add',
      object: pod,
      resource: { apiVersion: 'v1', kind: 'Pod' },
    });
    expect(e.attributes.env).toBe('prod');
    expect(e.attributes.kind).toBe('Other');
  });
});
