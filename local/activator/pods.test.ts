import {
  CONFIGURATION_LABEL,
  describeFailure,
  isRetryable,
  replicaPod,
  retryPause,
  REVISION_LABEL,
  SERVICE_LABEL,
} from './pods.js';
import type { FunctionService } from './services.js';

function fn(over: Partial<FunctionService> = {}): FunctionService {
  return {
    name: 'requeue-tick',
    namespace: 'landscape-system',
    revision: 'requeue-tick-00001',
    containerConcurrency: 1,
    maxScale: 1,
    minScale: 0,
    target: 1,
    windowMs: 60_000,
    timeoutSeconds: 60,
    env: [],
    ...over,
  };
}

const POD = 'requeue-tick-00001-deployment-bcdfghjklm-npqrs';

interface PodShape {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  spec: { serviceAccountName?: string; nodeName: string; containers: { name: string; image: string }[] };
}

describe('replicaPod', () => {
  it('labelled as Knative labels a revision’s pods', () => {
    const pod = replicaPod(fn(), POD, 4242) as unknown as PodShape;
    expect(pod).toMatchObject({ apiVersion: 'v1', kind: 'Pod' });
    expect(pod.metadata.labels).toEqual({
      'serving.knative.dev/service': 'requeue-tick',
      'serving.knative.dev/revision': 'requeue-tick-00001',
      'serving.knative.dev/configuration': 'requeue-tick',
      'serving.knative.dev/configurationGeneration': '1',
      app: 'requeue-tick-00001',
    });
    expect([SERVICE_LABEL, REVISION_LABEL, CONFIGURATION_LABEL]).toEqual([
      'serving.knative.dev/service',
      'serving.knative.dev/revision',
      'serving.knative.dev/configuration',
    ]);
  });

  it.each<[string, Partial<FunctionService>, number | undefined, Record<string, unknown>]>([
    [
      'name, namespace and pid',
      {},
      4242,
      {
        metadata: expect.objectContaining({
          name: POD,
          namespace: 'landscape-system',
          annotations: { 'landscape.dev/activator-pid': '4242' },
        }),
      },
    ],
    [
      'no pid yet: an empty annotation',
      {},
      undefined,
      { metadata: expect.objectContaining({ annotations: { 'landscape.dev/activator-pid': '' } }) },
    ],
    [
      'another namespace',
      { namespace: 'demo' },
      1,
      { metadata: expect.objectContaining({ namespace: 'demo' }) },
    ],
    [
      'the serviceAccountName of the Service',
      { serviceAccountName: 'requeue-tick' },
      1,
      { spec: expect.objectContaining({ serviceAccountName: 'requeue-tick' }) },
    ],
    [
      'the image of the Service in user-container',
      { image: 'landscape-functions:0.1.0' },
      1,
      {
        spec: expect.objectContaining({
          containers: [{ name: 'user-container', image: 'landscape-functions:0.1.0' }],
        }),
      },
    ],
    [
      'no image: the landscape image',
      {},
      1,
      {
        spec: expect.objectContaining({
          containers: [{ name: 'user-container', image: 'landscape-functions' }],
        }),
      },
    ],
  ])('%s', (_, service, pid, expected) => {
    expect(replicaPod(fn(service), POD, pid)).toMatchObject(expected);
  });

  it('no serviceAccountName: none set (the namespace default applies)', () => {
    const pod = replicaPod(fn(), POD, 1) as unknown as PodShape;
    expect('serviceAccountName' in pod.spec).toBe(false);
    expect(pod.spec.nodeName).toBe('landscape-activator');
  });
});

describe('Pod write retries', () => {
  const apiError = (code: number, reason: string, message: string): Error =>
    Object.assign(new Error(`HTTP-Code: ${code}\nBody: ...`), {
      code,
      body: JSON.stringify({ kind: 'Status', code, reason, message }),
    });

  it.each([
    ['no answer', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), true],
    ['409', apiError(409, 'Conflict', 'the object has been modified'), true],
    ['429', apiError(429, 'TooManyRequests', 'slow down'), true],
    ['500', apiError(500, 'InternalError', 'injected fault'), true],
    ['409 AlreadyExists', apiError(409, 'AlreadyExists', 'already exists'), false],
    ['422', apiError(422, 'Invalid', 'bad name'), false],
    ['403', apiError(403, 'Forbidden', 'no'), false],
  ])('%s is retried: %s', (_what, err, retried) => {
    expect(isRetryable(err)).toBe(retried);
  });

  it('pauses double from 100 ms up to 5 s', () => {
    expect([0, 1, 2, 5, 6, 20].map(retryPause)).toEqual([100, 200, 400, 3200, 5000, 5000]);
  });

  it('describes a failure by its Status, not the whole client error', () => {
    expect(describeFailure(apiError(409, 'Conflict', 'the object has been modified'))).toBe(
      '409 Conflict: the object has been modified',
    );
    expect(describeFailure(new Error('socket hang up'))).toBe('socket hang up');
  });
});
