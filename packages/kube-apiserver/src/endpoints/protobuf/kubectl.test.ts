import {
  decodeProtobufObject,
  encodeProtobufObject,
  isProtobufContentType,
  PROTOBUF_CONTENT_TYPE,
  requestBodyText,
} from './index.js';
import { StatusError } from '../../api/errors.js';
import { KUBECTL_CAPTURES } from './protobuf.fixtures.js';

describe('decodeProtobufObject: bodies kubectl 1.32 really sent', () => {
  it.each(Object.entries(KUBECTL_CAPTURES))('%s', (_name, capture) => {
    expect(decodeProtobufObject(Buffer.from(capture.body, 'base64'))).toEqual(capture.json);
  });
});

describe('encodeProtobufObject', () => {
  it.each(Object.entries(KUBECTL_CAPTURES))('round-trips %s', (_name, capture) => {
    expect(decodeProtobufObject(encodeProtobufObject(capture.json))).toEqual(capture.json);
  });

  it('round-trips a pod with probes, volumes, security contexts, affinity and status', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'ns',
        uid: 'u-1',
        creationTimestamp: '2026-01-01T00:00:00Z',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-0', controller: true },
        ],
      },
      spec: {
        volumes: [
          { name: 'd', emptyDir: { sizeLimit: '1Gi' } },
          { name: 's', secret: { secretName: 's', defaultMode: 0 } },
        ],
        containers: [
          {
            name: 'c',
            image: 'nginx',
            readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
            startupProbe: { grpc: { port: 9090, service: '' } },
            securityContext: { capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
            volumeMounts: [{ name: 'd', mountPath: '/d', readOnly: true }],
          },
        ],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: ['a'] }] }],
            },
          },
        },
        securityContext: { runAsUser: 0, fsGroup: 2000 },
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' }],
        containerStatuses: [
          {
            name: 'c',
            ready: true,
            restartCount: 0,
            image: 'nginx',
            imageID: '',
            state: { running: { startedAt: '2026-01-01T00:00:01Z' } },
          },
        ],
      },
    };
    expect(decodeProtobufObject(encodeProtobufObject(pod))).toEqual(pod);
  });
});

describe('content type helpers', () => {
  it('recognises the protobuf media type and turns a protobuf body into JSON text', () => {
    expect(PROTOBUF_CONTENT_TYPE).toBe('application/vnd.kubernetes.protobuf');
    expect(isProtobufContentType('application/vnd.kubernetes.protobuf; charset=utf-8')).toBe(true);
    expect(isProtobufContentType('application/json')).toBe(false);
    const body = Buffer.from(KUBECTL_CAPTURES.namespace.body, 'base64');
    expect(JSON.parse(requestBodyText(body, PROTOBUF_CONTENT_TYPE))).toEqual(KUBECTL_CAPTURES.namespace.json);
    expect(requestBodyText(Buffer.from('{"a":1}'), 'application/json')).toBe('{"a":1}');
  });

  it('answers a body it cannot decode with 400 and an unsupported kind with 415', () => {
    const fail = (body: Buffer): unknown => {
      try {
        return requestBodyText(body, PROTOBUF_CONTENT_TYPE);
      } catch (e) {
        return e;
      }
    };
    const bad = fail(Buffer.from('{"kind":"ConfigMap"}'));
    expect(bad).toBeInstanceOf(StatusError);
    expect((bad as StatusError).code).toBe(400);
    const ns = Buffer.from(KUBECTL_CAPTURES.namespace.body, 'base64');
    const v2Body = Buffer.from(
      ns.toString('latin1').replace('\x02v1\x12\tNamespace', '\x02v2\x12\tNamespace'),
      'latin1',
    );
    const unsupported = fail(v2Body);
    expect(unsupported).toBeInstanceOf(StatusError);
    expect((unsupported as StatusError).code).toBe(415);
    expect((unsupported as StatusError).message).toMatch(/kind "Namespace" in version "v2" is not supported/);
  });
});
