/**
 * Keeps functions/, knative/, config/, serverless.yml and the Dockerfile in step (issue 4, item
 * 9): the repository's own packaging has no problem, every YAML document of knative/ validates
 * against its kind's schema and loads in the product's own readers (broker, API-server source,
 * ping source); and the checker itself names the missing piece in each broken set of a table.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import {
  builtinSchemas,
  checkPackaging,
  crdSchemasIn,
  imageFunctionsDir,
  isKnativeService,
  isSinkBound,
  platformProblems,
  kindValidator,
  readPackaging,
  refOf,
  schemaProblems,
  type KindValidator,
  type ManifestDoc,
  type PackagingSet,
} from '../../scripts/packaging/index.js';
import { parseServices, type FunctionService } from '../../local/activator/services.js';
import { loadManifests } from '../../triggers/broker/index.js';
import { loadSourceSpecs } from '../../triggers/apiserver-source/service.js';
import { parsePingSources, scheduleProblem } from '../../triggers/ping-source/spec.js';
import { container, fixture, obj, type Json } from './packaging.fixtures.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const KNATIVE = join(ROOT, 'knative');
/** Knative's CRD schemas, beside the repository. */
const KNATIVE_SCHEMAS = resolve(ROOT, 'test/fixtures/upstream-schemas/knative');

let repo: PackagingSet;
let validate: KindValidator;

beforeAll(async () => {
  repo = await readPackaging({ root: ROOT });
  if (!existsSync(KNATIVE_SCHEMAS)) throw new Error(`Knative's CRD schemas are missing: ${KNATIVE_SCHEMAS}`);
  validate = kindValidator(new Map([...builtinSchemas(), ...(await crdSchemasIn(KNATIVE_SCHEMAS))]));
});

describe('the repository', () => {
  it('has functions and manifests to check', () => {
    expect(repo.functions.map((f) => f.name)).toEqual(
      expect.arrayContaining(['dead-letter', 'requeue-tick']),
    );
    expect(repo.manifests.length).toBeGreaterThan(0);
  });

  it('keeps functions/, knative/, config/, serverless.yml and the Dockerfile in step', () => {
    expect(checkPackaging(repo)).toEqual([]);
  });

  it('applies on a default Knative install (no fieldRef, delivery timeouts, securityContext, resources, SinkBinding, source RBAC, the weeder on EndpointSlices, ticks reaching zero)', () => {
    expect(platformProblems(repo)).toEqual([]);
    const services = repo.manifests.filter(isKnativeService);
    expect(services.length).toBe(repo.functions.length);
    expect(repo.manifests.filter((d) => refOf(d).kind === 'SinkBinding').map((d) => d.file)).toEqual([
      'knative/runtime/sink-binding.yaml',
    ]);
    // the emitting functions (their configs need K_SINK) are bound, the others are not
    expect(
      services
        .filter((s) => isSinkBound(repo, s))
        .map((s) => refOf(s).name)
        .sort(),
    ).toEqual(['requeue-tick', 'responsibility-check']);
  });

  it('validates every document of knative/ against the schema of its kind', () => {
    expect(schemaProblems(repo.manifests, validate)).toEqual([]);
  });

  it('loads knative/ in the broker with no problem: the Broker dead-letters to dead-letter', async () => {
    const set = await loadManifests(KNATIVE);
    expect(set.problems).toEqual([]);
    expect(set.brokers).toEqual([
      expect.objectContaining({
        name: 'default',
        namespace: 'landscape-system',
        delivery: expect.objectContaining({
          deadLetterSink: { ref: expect.objectContaining({ kind: 'Service', name: 'dead-letter' }) },
        }),
      }),
    ]);
    expect(set.triggers.map((t) => `${t.namespace}/${t.name}`)).toContain('landscape-system/requeue-tick');
  });

  it('loads knative/ in the API-server source with no problem', async () => {
    await expect(loadSourceSpecs(KNATIVE)).resolves.toEqual(expect.any(Array));
  });

  it('loads every PingSource with its sink resolved, and its embedded six-field schedule', async () => {
    const resolveRef = (ref: { kind: string; name: string }, ns: string): string | undefined =>
      repo.manifests.some(
        (d) => refOf(d).kind === ref.kind && refOf(d).name === ref.name && refOf(d).namespace === ns,
      )
        ? `http://${ref.name}.${ns}.invalid/`
        : undefined;
    const files = [...new Set(repo.manifests.map((d) => d.file))];
    const names: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      const { sources, problems } = parsePingSources(text, { resolveRef });
      expect({ file, problems }).toEqual({ file, problems: [] });
      names.push(...sources.map((s) => `${s.namespace}/${s.name}`));
      for (const doc of parseAllDocuments(text)) {
        const o = doc.toJS() as Json | null;
        const embedded = o?.metadata?.annotations?.['landscape.dev/embedded-schedule'] as string | undefined;
        if (o?.kind === 'PingSource' && embedded !== undefined)
          expect({ file, problem: scheduleProblem(embedded, o.spec?.timezone, true) }).toEqual({
            file,
            problem: undefined,
          });
      }
    }
    expect(names).toContain('landscape-system/requeue-tick');
  });

  it('parses every Knative Service in the activator with no problem, scaling as declared', async () => {
    const services: FunctionService[] = [];
    for (const file of [...new Set(repo.manifests.map((d) => d.file))]) {
      const r = parseServices(await readFile(join(ROOT, file), 'utf8'), file);
      expect({ file, problems: r.problems }).toEqual({ file, problems: [] });
      services.push(...r.services);
    }
    const scaling = (s: FunctionService): unknown[] => [
      s.minScale,
      s.maxScale,
      s.containerConcurrency,
      s.configMountPath,
    ];
    expect(Object.fromEntries(services.map((s) => [s.name, scaling(s)]))).toEqual({
      'dead-letter': [0, 2, 10, '/etc/landscape'],
      'requeue-tick': [0, 1, 1, '/etc/landscape'],
      'responsibility-check': [0, 1, 20, '/etc/landscape'],
      'deployer-mock': [0, 1, 25, '/etc/landscape'],
      'deployer-manifest': [0, 1, 10, '/etc/landscape'],
      'deployitem-timeout': [0, 1, 1, '/etc/landscape'],
      'syncobject-cleanup': [0, 1, 1, '/etc/landscape'],
      'landscaper-monitoring': [0, 1, 1, '/etc/landscape'],
      weeder: [0, 2, 20, '/etc/landscape'],
      'probe-tick': [0, 1, 10, '/etc/landscape'],
      'schedule-shoot': [0, 3, 10, '/etc/landscape'],
      managedseed: [0, 2, 10, '/etc/landscape'],
      'deletion-protection': [0, 2, 10, '/etc/landscape'],
      'seed-status': [0, 2, 10, '/etc/landscape'],
      managedseedset: [0, 2, 10, '/etc/landscape'],
      'seed-autoscaler': [0, 1, 1, '/etc/landscape'],
    });
  });

  it('runs in every Service the bundle the Dockerfile puts in the image', () => {
    const dir = imageFunctionsDir(repo.dockerfile?.text ?? '');
    expect(dir).toBe('/app/functions');
    const services = repo.manifests.filter(isKnativeService);
    expect(services.length).toBe(repo.functions.length);
    for (const s of services) {
      const command = (s.object as Json).spec.template.spec.containers[0].command;
      expect(command).toEqual(['node', `${dir}/${refOf(s).name}/server.js`]);
    }
  });

  it('keeps the build context small (.dockerignore)', async () => {
    const ignore = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', '.local']));
  });
});

describe('checkPackaging', () => {
  it('finds nothing wrong in the fixture', () => {
    expect(checkPackaging(fixture())).toEqual([]);
  });

  type Fixture = ReturnType<typeof fixture>;
  const without = (set: Fixture, kind: string, name?: string): void => {
    const o = obj(set, kind, name);
    set.manifests = set.manifests.filter((d) => d.object !== o);
  };

  it.each<[string, (set: Fixture) => void, RegExp]>([
    [
      'no Knative Service',
      (s) => without(s, 'Service'),
      /^knative\/: no Knative Service "echo" \(serving\.knative\.dev\/v1\) for functions\/echo\/handler\.ts$/,
    ],
    [
      'a Service running another bundle',
      (s) => (container(s).command = ['node', '/app/echo.js']),
      /Service ls\/echo: command must be \["node","\/app\/functions\/echo\/server\.js"\]/,
    ],
    [
      'no ConfigMap',
      (s) => without(s, 'ConfigMap'),
      /Service ls\/echo: ConfigMap ls\/echo-config is not in knative\/runtime\/$/,
    ],
    [
      'a ConfigMap without the key of CONFIG_FILE',
      (s) => (obj(s, 'ConfigMap').data = { 'other.yaml': '' }),
      /ConfigMap ls\/echo-config: no data key "config\.yaml"/,
    ],
    [
      'a ConfigMap that is not mounted where CONFIG_FILE points',
      (s) => (container(s).volumeMounts[0].mountPath = '/etc/other'),
      /no volumeMount at \/etc\/landscape \(the folder of CONFIG_FILE/,
    ],
    [
      'no CONFIG_FILE',
      (s) => (container(s).env = container(s).env.filter((e: Json) => e.name !== 'CONFIG_FILE')),
      /Service ls\/echo: no CONFIG_FILE env/,
    ],
    ['no config file', (s) => (s.configFiles = []), /^config\/echo\.yaml: missing/],
    [
      'a config file loadConfig rejects',
      (s) => (s.configFiles[0].text = 'greeting: 42\n'),
      /^config\/echo\.yaml: greeting: required$/,
    ],
    [
      'a config file of no function',
      (s) => s.configFiles.push({ file: 'config/ghost.yaml', name: 'ghost', text: '' }),
      /^config\/ghost\.yaml: no function "ghost"/,
    ],
    [
      'a ConfigMap config loadConfig rejects',
      (s) => (obj(s, 'ConfigMap').data['config.yaml'] = 'greeting: [x]\n'),
      /ConfigMap ls\/echo-config: data\.config\.yaml: greeting: required$/,
    ],
    [
      'a ConfigMap config without the platform value it needs',
      (s) => (container(s).env = container(s).env.filter((e: Json) => e.name !== 'REDIS_URL')),
      /ConfigMap ls\/echo-config: data\.config\.yaml: redisUrl: /,
    ],
    [
      'a function nothing routes to',
      (s) => {
        without(s, 'Trigger');
        delete obj(s, 'Broker').spec.delivery.deadLetterSink;
      },
      /Service ls\/echo: no Trigger subscribes it and no Broker or Trigger has it as deadLetterSink/,
    ],
    [
      'a Trigger subscribing a missing Service',
      (s) => (obj(s, 'Trigger').spec.subscriber.ref.name = 'ghost'),
      /Trigger ls\/echo: spec\.subscriber\.ref names Service ls\/ghost \(serving\.knative\.dev\/v1\), which is not in knative\/runtime\//,
    ],
    [
      'a Trigger on a missing Broker',
      (s) => (obj(s, 'Trigger').spec.broker = 'other'),
      /Trigger ls\/echo: spec\.broker names Broker ls\/other/,
    ],
    [
      'a dead-letter sink that does not exist',
      (s) => (obj(s, 'Broker').spec.delivery.deadLetterSink.ref.name = 'dlq'),
      /Broker ls\/default: spec\.delivery\.deadLetterSink\.ref names Service ls\/dlq/,
    ],
    [
      'a PingSource sending to a missing Broker',
      (s) => (obj(s, 'PingSource').spec.sink.ref.name = 'nope'),
      /PingSource ls\/echo: spec\.sink\.ref names Broker ls\/nope/,
    ],
    [
      'a missing ServiceAccount',
      (s) => without(s, 'ServiceAccount'),
      /Service ls\/echo: spec\.template\.spec\.serviceAccountName names ServiceAccount ls\/echo/,
    ],
    [
      'a RoleBinding to a missing ServiceAccount and Role',
      (s) =>
        s.manifests.push({
          ...s.manifests[0],
          object: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { ...obj(s, 'Trigger').metadata, name: 'rb' },
            subjects: [{ kind: 'ServiceAccount', name: 'nobody' }],
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
          },
        }),
      /RoleBinding ls\/rb: subjects\[0\] names ServiceAccount ls\/nobody/,
    ],
    [
      'a Service of no function',
      (s) =>
        s.manifests.push({
          ...s.manifests[3],
          object: { ...obj(s, 'Service'), metadata: { ...obj(s, 'Service').metadata, name: 'ghost' } },
        }),
      /Service ls\/ghost: no function "ghost" \(functions\/ghost\/handler\.ts\)/,
    ],
    [
      'no serverless entry',
      (s) => delete (s.serverless!.doc as Json).functions.echo,
      /^serverless\.yml: no entry functions\.echo \(handler: echo\)$/,
    ],
    [
      'a serverless entry of no function',
      (s) => ((s.serverless!.doc as Json).functions.ghost = { handler: 'ghost', events: [{ http: 'g' }] }),
      /^serverless\.yml: functions\.ghost: no function "ghost"/,
    ],
    [
      'a serverless handler that is not the camelCase export',
      (s) => ((s.serverless!.doc as Json).functions.echo.handler = 'main'),
      /^serverless\.yml: functions\.echo\.handler must be echo/,
    ],
    [
      'a handler that is not exported',
      (s) => (s.functions[0] = { ...s.functions[0], handlerExports: {} }),
      /^functions\/echo\/handler\.ts: does not export the handler as a function named echo$/,
    ],
    [
      'a function not registered with the Functions Framework',
      (s) => (s.functions[0] = { ...s.functions[0], registered: () => false }),
      /^functions\/echo\/handler\.ts: registers no Functions Framework function "echo"/,
    ],
    [
      'a schedule of no function',
      (s) => ((s.serverless!.doc as Json).custom.landscape.schedules[0].function = 'ghost'),
      /custom\.landscape\.schedules\[0\]\.function: no function "ghost"/,
    ],
    ['no serverless.yml', (s) => delete s.serverless, /^serverless\.yml: missing/],
    [
      'a Dockerfile that runs as root',
      (s) => (s.dockerfile!.text = s.dockerfile!.text.replace(/USER .*\n/, '')),
      /^Dockerfile: needs USER 65532/,
    ],
    [
      'a Dockerfile whose replicas would start without a code cache',
      (s) => (s.dockerfile!.text = s.dockerfile!.text.replace(/RUN node .*train\.cjs.*\n/, '')),
      /^Dockerfile: needs RUN node <functions>\/train\.cjs <functions>/,
    ],
    [
      'a Dockerfile that does not copy the bundles',
      (s) => (s.dockerfile!.text = s.dockerfile!.text.replace(/COPY --from.*\n/, '')),
      /^Dockerfile: needs COPY --from=<build stage> <workdir>\/dist\/functions \/app\/functions$/,
    ],
    [
      'a document outside a family folder',
      (s) => (s.manifests[1] = { ...s.manifests[1], family: '', file: 'knative/sa.yaml' }),
      /^knative\/sa\.yaml: must be in a family folder/,
    ],
    [
      'a document labelled with another family',
      (s) => (obj(s, 'Trigger').metadata.labels['landscape.dev/family'] = 'deployers'),
      /Trigger ls\/echo: label landscape\.dev\/family must be "runtime"/,
    ],
    [
      'a namespaced document without a namespace',
      (s) => delete obj(s, 'ConfigMap').metadata.namespace,
      /ConfigMap echo-config: metadata\.namespace is required/,
    ],
    [
      'a Service that is not cluster-local',
      (s) => delete obj(s, 'Service').metadata.labels['networking.knative.dev/visibility'],
      /Service ls\/echo: needs label networking\.knative\.dev\/visibility: cluster-local/,
    ],
    // what a default Knative install asks of knative/ (scripts/packaging/platform.ts)
    [
      'a Service with the downward API (fieldRef)',
      (s) =>
        container(s).env.push({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }),
      /Service ls\/echo: spec\.template\.spec\.containers\[0\]\.env\[2\]\.valueFrom\.fieldRef: no fieldRef/,
    ],
    [
      'a fieldRef in any document',
      (s) => (obj(s, 'ConfigMap').metadata.annotations = { x: { fieldRef: {} } } as Json),
      /ConfigMap ls\/echo-config: metadata\.annotations\.x\.fieldRef: no fieldRef/,
    ],
    [
      "a Trigger's delivery timeout shorter than its Service's timeoutSeconds",
      (s) => (obj(s, 'Trigger').spec.delivery.timeout = 'PT30S'),
      /Trigger ls\/echo: delivery timeout PT30S is shorter than Service echo's timeoutSeconds 60/,
    ],
    [
      'a Trigger without delivery on a Broker whose timeout is shorter',
      (s) => {
        delete obj(s, 'Trigger').spec.delivery;
        obj(s, 'Broker').spec.delivery.timeout = 'PT10S';
      },
      /Trigger ls\/echo \(its Broker's delivery\): delivery timeout PT10S is shorter/,
    ],
    [
      "a Trigger's timeout against the Service's default timeoutSeconds (300)",
      (s) => delete obj(s, 'Service').spec.template.spec.timeoutSeconds,
      /Trigger ls\/echo: delivery timeout PT60S is shorter than Service echo's timeoutSeconds 300/,
    ],
    [
      "a Broker's timeout shorter than its dead-letter sink's timeoutSeconds",
      (s) => (obj(s, 'Broker').spec.delivery.timeout = 'PT1S'),
      /Broker ls\/default \(to its deadLetterSink\): delivery timeout PT1S is shorter/,
    ],
    [
      'a container that may run as root',
      (s) => delete container(s).securityContext.runAsNonRoot,
      /Service ls\/echo: containers\[0\]: needs securityContext\.runAsNonRoot: true$/,
    ],
    [
      'a container that may escalate',
      (s) => (container(s).securityContext.allowPrivilegeEscalation = true),
      /containers\[0\]: needs securityContext\.allowPrivilegeEscalation: false$/,
    ],
    [
      'a container that keeps its capabilities',
      (s) => (container(s).securityContext.capabilities = { drop: ['NET_RAW'] }),
      /containers\[0\]: needs securityContext\.capabilities\.drop: \[ALL\]$/,
    ],
    [
      'a container without the RuntimeDefault seccomp profile',
      (s) => (container(s).securityContext.seccompProfile = { type: 'Unconfined' }),
      /containers\[0\]: needs securityContext\.seccompProfile\.type: RuntimeDefault$/,
    ],
    [
      'a writable root filesystem',
      (s) => delete container(s).securityContext.readOnlyRootFilesystem,
      /containers\[0\]: needs securityContext\.readOnlyRootFilesystem: true/,
    ],
    [
      'an init container without a securityContext',
      (s) => (obj(s, 'Service').spec.template.spec.initContainers = [{ name: 'init', image: 'i' }]),
      /Service ls\/echo: initContainers\[0\]: needs securityContext\.runAsNonRoot: true$/,
    ],
    [
      'no resource requests',
      (s) => delete container(s).resources.requests,
      /containers\[0\]: needs resources\.requests \(cpu and memory\)$/,
    ],
    [
      'no memory limit',
      (s) => delete container(s).resources.limits,
      /containers\[0\]: needs resources\.limits\.memory$/,
    ],
    [
      'a K_SINK set in the manifest',
      (s) =>
        container(s).env.push({
          name: 'K_SINK',
          value: 'http://broker-ingress.knative-eventing.svc.cluster.local/ls/default',
        }),
      /Service ls\/echo: containers\[0\]: sets K_SINK; a SinkBinding gives it/,
    ],
    [
      'an emitting Service no SinkBinding selects',
      (s) => (obj(s, 'SinkBinding').spec.subject.selector.matchLabels = { other: 'x' }),
      /Service ls\/echo: labelled landscape\.dev\/emits but no SinkBinding selects it/,
    ],
    [
      'a SinkBinding whose Broker is missing',
      (s) => (obj(s, 'SinkBinding').spec.sink.ref.name = 'nope'),
      /knative\/runtime\/all\.yaml: SinkBinding ls\/emitters: spec\.sink\.ref: Broker ls\/nope is not in the manifests/,
    ],
    [
      "a source's ServiceAccount that may read namespaces",
      (s) =>
        obj(s, 'ClusterRole').rules.push({
          apiGroups: [''],
          resources: ['namespaces'],
          verbs: ['get', 'list', 'watch'],
        }),
      /ClusterRole weeder-source: grants the source's ServiceAccount weeder-source more than it watches: namespaces \(core\)$/,
    ],
    [
      "a source's ServiceAccount that may delete",
      (s) => obj(s, 'ClusterRole').rules[0].verbs.push('delete'),
      /ClusterRole weeder-source: grants .* more than it watches: verb delete$/,
    ],
    [
      "the weeder's source watching Pods and Endpoints too",
      (s) =>
        obj(s, 'ApiServerSource').spec.resources.push(
          { apiVersion: 'v1', kind: 'Pod' },
          { apiVersion: 'v1', kind: 'Endpoints' },
        ),
      /ApiServerSource ls\/weeder: the weeder's source sends EndpointSlices \(discovery\.k8s\.io\/v1\) only, found discovery\.k8s\.io\/v1 EndpointSlice, v1 Pod, v1 Endpoints/,
    ],
    [
      'a Service ticked every minute with the default window (60 s)',
      (s) => delete obj(s, 'Service').spec.template.metadata.annotations['autoscaling.knative.dev/window'],
      /Service ls\/echo: ticked every minute: needs annotations autoscaling\.knative\.dev\/window and/,
    ],
    [
      'a Service ticked every minute whose window keeps it up',
      (s) => (obj(s, 'Service').spec.template.metadata.annotations['autoscaling.knative.dev/window'] = '30s'),
      /ticked every minute: window 30s \+ grace 30s \+ retention 0s is not under a minute/,
    ],
    [
      'a document defined twice',
      (s) => s.manifests.push({ ...s.manifests[1], file: 'knative/runtime/again.yaml' }),
      /ServiceAccount ls\/echo: also defined in knative\/runtime\/all\.yaml/,
    ],
    [
      'an unreadable file',
      (s) => s.readProblems.push('knative/runtime/x.yaml: document 1: bad indentation'),
      /^knative\/runtime\/x\.yaml: document 1: bad indentation$/,
    ],
  ])('reports %s', (_name, breakIt, message) => {
    const set = fixture();
    breakIt(set);
    const problems = checkPackaging(set);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
  });

  it('resolves references in the runtime family from other families', () => {
    const set = fixture();
    const trigger = obj(set, 'Trigger');
    set.manifests = set.manifests.map((d) =>
      d.object === trigger
        ? {
            ...d,
            family: 'deployers',
            file: 'knative/deployers/t.yaml',
            object: {
              ...trigger,
              metadata: {
                ...trigger.metadata,
                labels: { ...trigger.metadata.labels, 'landscape.dev/family': 'deployers' },
              },
            },
          }
        : d,
    );
    expect(checkPackaging(set)).toEqual([]);
  });
});

describe('kind schemas', () => {
  const doc = (object: Json): ManifestDoc => ({
    file: 'knative/runtime/x.yaml',
    family: 'runtime',
    index: 1,
    object,
  });
  const service = (): Json => structuredClone(obj(fixture(), 'Service'));

  it.each<[string, () => Json, RegExp | undefined]>([
    ['the fixture Service', service, undefined],
    [
      'an unknown field in a Knative Service (a typo)',
      () => {
        const s = service();
        s.spec.template.spec.containerConcurency = 1;
        return s;
      },
      /spec\.template\.spec: unknown field "containerConcurency"/,
    ],
    [
      'a wrongly typed field',
      () => {
        const s = service();
        s.spec.template.spec.timeoutSeconds = '60';
        return s;
      },
      /spec\.template\.spec\.timeoutSeconds: must be integer/,
    ],
    [
      'an unknown metadata field',
      () => {
        const s = service();
        s.metadata.label = {};
        return s;
      },
      /metadata: unknown field "label"/,
    ],
    [
      'a Trigger with retry as text',
      () => ({
        ...obj(fixture(), 'Trigger'),
        spec: { broker: 'default', subscriber: { uri: 'http://x' }, delivery: { retry: '2' } },
      }),
      /spec\.delivery\.retry: must be integer/,
    ],
    [
      'a ConfigMap with a non-string value',
      () => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'ls' },
        data: { n: 1 },
      }),
      /data\.n: must be string/,
    ],
    [
      'a ServiceAccount with an unknown field',
      () => ({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'a', namespace: 'ls' },
        automount: false,
      }),
      /\(root\): unknown field "automount"/,
    ],
    [
      'a kind with no schema',
      () => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }),
      /no schema for example\.com\/v1 Widget/,
    ],
  ])('%s', (_name, make, message) => {
    const problems = schemaProblems([doc(make())], validate);
    if (message === undefined) expect(problems).toEqual([]);
    else expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
  });
});
