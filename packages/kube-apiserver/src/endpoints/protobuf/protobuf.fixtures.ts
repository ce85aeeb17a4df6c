/**
 * Request bodies kubectl 1.32 really sent (Content-Type application/vnd.kubernetes.protobuf), captured
 * with a recording proxy in front of the embedded API server, and the JSON the same kubectl command
 * prints with `--dry-run=client -o json` (less `creationTimestamp: null`): what the decoder must give.
 * The RBAC, TokenRequest and access review captures are in protobuf-rbac.fixtures.ts.
 */
import { KUBECTL_RBAC_CAPTURES, type KubectlCapture } from './protobuf-rbac.fixtures.js';

export type { KubectlCapture } from './protobuf-rbac.fixtures.js';

export const KUBECTL_CAPTURES: Record<string, KubectlCapture> = {
  configMap: {
    command: 'kubectl create configmap foo --from-literal=a=b --from-literal=key2=hello',
    path: 'POST /api/v1/namespaces/default/configmaps',
    body: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEiwKEwoDZm9vEgAaACIAKgAyADgAQgASBgoBYRIBYhINCgRrZXkyEgVoZWxsbxoAIgA=',
    json: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'foo' }, data: { a: 'b', key2: 'hello' } },
  },
  configMapBinary: {
    command:
      "kubectl create configmap cmbin --from-file=bin=bin.dat --from-literal=t=x (bin.dat = 00 01 02 ff fe 'bin')",
    path: 'POST /api/v1/namespaces/default/configmaps',
    body: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEjAKFQoFY21iaW4SABoAIgAqADIAOABCABIGCgF0EgF4Gg8KA2JpbhIIAAEC//5iaW4aACIA',
    json: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cmbin' },
      data: { t: 'x' },
      binaryData: { bin: 'AAEC//5iaW4=' },
    },
  },
  namespace: {
    command: 'kubectl create namespace ns1',
    path: 'POST /api/v1/namespaces',
    body: 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDbnMxEgAaACIAKgAyADgAQgASABoCCgAaACIA',
    json: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'ns1' }, spec: {}, status: {} },
  },
  secretGeneric: {
    command: 'kubectl create secret generic s1 --from-literal=user=admin --from-file=bin=bin.dat',
    path: 'POST /api/v1/namespaces/default/secrets',
    body: 'azhzAAoMCgJ2MRIGU2VjcmV0EjYKEgoCczESABoAIgAqADIAOABCABIPCgNiaW4SCAABAv/+YmluEg0KBHVzZXISBWFkbWluGgAaACIA',
    json: {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's1' },
      data: { bin: 'AAEC//5iaW4=', user: 'YWRtaW4=' },
    },
  },
  serviceAccount: {
    command: 'kubectl create serviceaccount sa1',
    path: 'POST /api/v1/namespaces/default/serviceaccounts',
    body: 'azhzAAoUCgJ2MRIOU2VydmljZUFjY291bnQSFQoTCgNzYTESABoAIgAqADIAOABCABoAIgA=',
    json: { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa1' } },
  },
  deployment: {
    command: 'kubectl create deployment web --image=nginx --replicas=2 --port=80',
    path: 'POST /apis/apps/v1/namespaces/default/deployments',
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50ErgBCh8KA3dlYhIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEoYBCAISDAoKCgNhcHASA3dlYhpsChwKABIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEkwSLgoFbmdpbngSBW5naW54KgAyCgoAEAAYUCIAKgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=',
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }],
          },
        },
        strategy: {},
      },
      status: {},
    },
  },
  serviceClusterIP: {
    command: 'kubectl create service clusterip svc1 --tcp=80:8080',
    path: 'POST /api/v1/namespaces/default/services',
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJsCiEKBHN2YzESABoAIgAqADIAOABCAFoLCgNhcHASBHN2YzESQwobCgc4MC04MDgwEgNUQ1AYUCIHCAAQkD8aACgAEgsKA2FwcBIEc3ZjMRoAIglDbHVzdGVySVA6AEIAUgBaAGAAaAAaAgoAGgAiAA==',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc1', labels: { app: 'svc1' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
        selector: { app: 'svc1' },
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    },
  },
  serviceNodePort: {
    command: 'kubectl create service nodeport np --tcp=80:8080 --node-port=30080',
    path: 'POST /api/v1/namespaces/default/services',
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJnCh0KAm5wEgAaACIAKgAyADgAQgBaCQoDYXBwEgJucBJCCh0KBzgwLTgwODASA1RDUBhQIgcIABCQPxoAKIDrARIJCgNhcHASAm5wGgAiCE5vZGVQb3J0OgBCAFIAWgBgAGgAGgIKABoAIgA=',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'np', labels: { app: 'np' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
        selector: { app: 'np' },
        type: 'NodePort',
      },
      status: { loadBalancer: {} },
    },
  },
  horizontalPodAutoscaler: {
    command: 'kubectl autoscale deployment web --min=1 --max=3 --cpu-percent=50',
    path: 'POST /apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers',
    body: 'azhzAAopCg5hdXRvc2NhbGluZy92MRIXSG9yaXpvbnRhbFBvZEF1dG9zY2FsZXISPwoTCgN3ZWISABoAIgAqADIAOABCABIiChoKCkRlcGxveW1lbnQSA3dlYhoHYXBwcy92MRABGAMgMhoEGAAgABoAIgA=',
    json: {
      kind: 'HorizontalPodAutoscaler',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        minReplicas: 1,
        maxReplicas: 3,
        targetCPUUtilizationPercentage: 50,
      },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    },
  },
  ...KUBECTL_RBAC_CAPTURES,
};
