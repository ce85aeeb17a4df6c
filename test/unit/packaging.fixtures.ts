/**
 * A small packaging set that is in step (one function `echo` in the runtime family, ticked every
 * minute, emitting through a SinkBinding; the weeder's ApiServerSource with its ServiceAccount and
 * ClusterRole), for the table tests of the packaging checker: each case breaks one piece of a
 * fresh copy.
 */
import { parse as parseYaml } from 'yaml';
import type {
  ConfigLoader,
  FunctionModule,
  ManifestDoc,
  PackagingSet,
} from '../../scripts/packaging/index.js';

export type Json = Record<string, any>;

const LABELS = { 'app.kubernetes.io/part-of': 'landscape-functions', 'landscape.dev/family': 'runtime' };

function meta(name: string, namespace?: string, extra: Json = {}): Json {
  return { name, ...(namespace ? { namespace } : {}), labels: { ...LABELS }, ...extra };
}

/** Accepts `greeting: <string>`; needs REDIS_URL from the environment (a platform value). */
export const echoLoadConfig: ConfigLoader = (text, env) => {
  const doc: unknown = text === undefined ? {} : parseYaml(text);
  const problems: string[] = [];
  if (typeof (doc as Json | null)?.greeting !== 'string') problems.push('greeting: required');
  if (!env['REDIS_URL']?.startsWith('redis://'))
    problems.push('redisUrl: must be a redis:// URL (REDIS_URL)');
  return problems.length > 0 ? { ok: false, problems } : { ok: true };
};

export function echoFunction(): FunctionModule {
  const handler = (): Promise<void> => Promise.resolve();
  const exports: Json = { echo: handler, instance: {} };
  return {
    name: 'echo',
    handlerExports: exports,
    registered: (n) => n === 'echo',
    loadConfig: echoLoadConfig,
  };
}

function service(): Json {
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: meta('echo', 'ls', {
      labels: {
        ...LABELS,
        'networking.knative.dev/visibility': 'cluster-local',
        'landscape.dev/emits': 'true',
      },
    }),
    spec: {
      template: {
        metadata: {
          annotations: {
            'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
            'autoscaling.knative.dev/min-scale': '0',
            'autoscaling.knative.dev/max-scale': '1',
            'autoscaling.knative.dev/window': '6s',
            'autoscaling.knative.dev/scale-to-zero-pod-retention-period': '0s',
          },
        },
        spec: {
          serviceAccountName: 'echo',
          containerConcurrency: 1,
          timeoutSeconds: 60,
          containers: [
            {
              image: 'landscape-functions:0.1.0',
              command: ['node', '/app/functions/echo/server.js'],
              env: [
                { name: 'CONFIG_FILE', value: '/etc/landscape/config.yaml' },
                { name: 'REDIS_URL', valueFrom: { secretKeyRef: { name: 'landscape-redis', key: 'url' } } },
              ],
              volumeMounts: [{ name: 'config', mountPath: '/etc/landscape', readOnly: true }],
              securityContext: {
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
            },
          ],
          volumes: [{ name: 'config', configMap: { name: 'echo-config' } }],
        },
      },
    },
  };
}

const ref = (kind: string, name: string, apiVersion: string): Json => ({ ref: { apiVersion, kind, name } });

function objects(): Json[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: meta('ls') },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta('echo', 'ls'),
      automountServiceAccountToken: false,
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('echo-config', 'ls'),
      data: { 'config.yaml': 'greeting: hi\n' },
    },
    service(),
    {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Broker',
      metadata: meta('default', 'ls'),
      spec: {
        delivery: {
          retry: 1,
          timeout: 'PT60S',
          deadLetterSink: ref('Service', 'echo', 'serving.knative.dev/v1'),
        },
      },
    },
    {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Trigger',
      metadata: meta('echo', 'ls'),
      spec: {
        broker: 'default',
        filters: [
          { exact: { type: 'dev.knative.sources.ping' } },
          { exact: { source: '/apis/v1/namespaces/ls/pingsources/echo' } },
        ],
        subscriber: ref('Service', 'echo', 'serving.knative.dev/v1'),
        delivery: { retry: 2, timeout: 'PT60S' },
      },
    },
    {
      apiVersion: 'sources.knative.dev/v1',
      kind: 'PingSource',
      metadata: meta('echo', 'ls'),
      spec: { schedule: '* * * * *', sink: ref('Broker', 'default', 'eventing.knative.dev/v1') },
    },
    {
      apiVersion: 'sources.knative.dev/v1',
      kind: 'SinkBinding',
      metadata: meta('emitters', 'ls'),
      spec: {
        subject: {
          apiVersion: 'serving.knative.dev/v1',
          kind: 'Service',
          selector: { matchLabels: { 'landscape.dev/emits': 'true' } },
        },
        sink: ref('Broker', 'default', 'eventing.knative.dev/v1'),
      },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('weeder-source', 'ls') },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta('weeder-source'),
      rules: [
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta('weeder-source'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'weeder-source' },
      subjects: [{ kind: 'ServiceAccount', name: 'weeder-source', namespace: 'ls' }],
    },
    {
      apiVersion: 'sources.knative.dev/v1',
      kind: 'ApiServerSource',
      metadata: meta('weeder', 'ls'),
      spec: {
        mode: 'Resource',
        serviceAccountName: 'weeder-source',
        namespaceSelector: { matchLabels: { 'gardener.cloud/role': 'shoot' } },
        resources: [{ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' }],
        sink: ref('Broker', 'default', 'eventing.knative.dev/v1'),
      },
    },
  ];
}

export const DOCKERFILE = [
  'FROM node:24-slim AS build',
  'WORKDIR /src',
  'COPY package.json package-lock.json ./',
  'RUN npm ci',
  'COPY . .',
  'RUN npm run build',
  'FROM node:24-slim',
  'ENV NODE_OPTIONS=--enable-source-maps',
  'COPY --from=build /src/dist/functions /app/functions',
  'RUN node /app/functions/train.cjs /app/functions',
  'USER 65532:65532',
  '',
].join('\n');

/** A fresh set in step: every case may edit it freely. */
export function fixture(): PackagingSet & { manifests: (ManifestDoc & { object: Json })[] } {
  return {
    functions: [echoFunction()],
    manifests: objects().map((object, i) => ({
      file: 'knative/runtime/all.yaml',
      family: 'runtime',
      index: i + 1,
      object,
    })),
    readProblems: [],
    configFiles: [{ file: 'config/echo.yaml', name: 'echo', text: 'greeting: hello\n' }],
    configDir: 'config',
    serverless: {
      file: 'serverless.yml',
      doc: {
        service: 'landscape-functions',
        plugins: ['serverless-google-cloudfunctions'],
        provider: { name: 'google', runtime: 'nodejs24' },
        functions: { echo: { handler: 'echo', events: [{ http: 'echo' }] } },
        custom: {
          landscape: { schedules: [{ function: 'echo', schedule: '* * * * *', pingSource: 'ls/echo' }] },
        },
      },
    },
    dockerfile: { file: 'Dockerfile', text: DOCKERFILE },
  };
}

/** The object of the first document of a kind (and name). */
export function obj(set: ReturnType<typeof fixture>, kind: string, name?: string): Json {
  const doc = set.manifests.find(
    (d) => d.object.kind === kind && (name === undefined || (d.object as Json).metadata?.name === name),
  );
  if (!doc) throw new Error(`fixture has no ${kind} ${name ?? ''}`);
  return doc.object;
}

export function container(set: ReturnType<typeof fixture>): Json {
  return obj(set, 'Service').spec.template.spec.containers[0];
}
