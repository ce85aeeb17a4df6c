/**
 * Checks that keep `functions/` and its packaging in step (pure): every function has its Knative
 * Service (running the bundle the Dockerfile puts in the image, with the env and config mount of
 * the convention, cluster-local, scaling to zero), is routed (a Trigger subscribes it, or it is a
 * dead-letter sink), is registered and exported under its serverless.yml `handler`; and nothing in
 * `knative/` or `serverless.yml` names a function that does not exist.
 */
import { REPLICA_V8_FLAGS } from '../../shared/serve/v8-flags.js';
import { configMountOf } from './configs.js';
import {
  array,
  camelCase,
  container,
  docsOf,
  isKnativeService,
  isRecord,
  KNATIVE_SERVICE_API,
  KPA_CLASS,
  label,
  LABEL_VISIBILITY,
  record,
  refOf,
  serviceOf,
  text,
  type ManifestDoc,
  type PackagingSet,
} from './model.js';

/** The folder the Dockerfile copies `dist/functions` to (`COPY --from=<stage> <dir>/dist/functions <dest>`). */
export function imageFunctionsDir(dockerfile: string): string | undefined {
  const m = /^COPY\s+--from=\S+(?:\s+--\S+)*\s+\S*dist\/functions\/?\s+(\S+)\s*$/m.exec(dockerfile);
  return m?.[1]?.replace(/\/+$/, '');
}

/** What the Dockerfile must do for the Services' commands to exist in the image. */
export function dockerfileProblems(set: PackagingSet): string[] {
  const d = set.dockerfile;
  if (d === undefined) return ['Dockerfile: missing (the image of the Knative Services)'];
  const rules: [RegExp, string][] = [
    [
      /^FROM\s+node:2[24]-slim\s+AS\s+\S+/im,
      'a build stage FROM node:22-slim or node:24-slim AS <name> (a supported LTS)',
    ],
    [/^FROM\s+node:2[24]-slim\s*$/im, 'a runtime stage FROM node:22-slim or node:24-slim (a supported LTS)'],
    [
      /^ENV\s+NODE_OPTIONS=\S*--enable-source-maps/m,
      'ENV NODE_OPTIONS=--enable-source-maps (stacks name the TypeScript lines)',
    ],
    ...REPLICA_V8_FLAGS.map((flag): [RegExp, string] => [
      new RegExp(
        `^ENV\\s+NODE_OPTIONS=.*[\\s"=]${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\s"]|$)`,
        'm',
      ),
      `${flag} in ENV NODE_OPTIONS (the replicas' V8 flags, shared/serve/v8-flags.ts: the code cache is trained under them)`,
    ]),
    [/^RUN\s+npm ci\b/m, 'RUN npm ci'],
    [/^RUN\s+npm run build\b/m, 'RUN npm run build (writes dist/functions/<name>/server.js)'],
    [
      /^RUN\s+node\s+\S*\/train\.cjs\s+\S+\s*$/m,
      "RUN node <functions>/train.cjs <functions> (V8 code cache of every bundle, trained with the image's node)",
    ],
    [/^USER\s+65532(:65532)?\s*$/m, 'USER 65532 (non-root)'],
  ];
  const out = rules.filter(([re]) => !re.test(d.text)).map(([, what]) => `${d.file}: needs ${what}`);
  if (imageFunctionsDir(d.text) === undefined)
    out.push(`${d.file}: needs COPY --from=<build stage> <workdir>/dist/functions /app/functions`);
  return out;
}

function commandProblems(set: PackagingSet, service: ManifestDoc, name: string): string[] {
  const dir = set.dockerfile ? imageFunctionsDir(set.dockerfile.text) : undefined;
  const want = ['node', `${dir ?? '/app/functions'}/${name}/server.js`];
  const command = array(container(service)['command']);
  if (JSON.stringify(command) === JSON.stringify(want)) return [];
  return [
    `${label(service)}: command must be ${JSON.stringify(want)} (the bundle the Dockerfile copies from npm run build), found ${JSON.stringify(command)}`,
  ];
}

function serviceShapeProblems(service: ManifestDoc): string[] {
  const where = label(service);
  const labels = record(record(service.object['metadata'])['labels']);
  const annotations = record(
    record(record(record(service.object['spec'])['template'])['metadata'])['annotations'],
  );
  const out: string[] = [];
  if (labels[LABEL_VISIBILITY] !== 'cluster-local')
    out.push(`${where}: needs label ${LABEL_VISIBILITY}: cluster-local`);
  if (annotations['autoscaling.knative.dev/class'] !== KPA_CLASS)
    out.push(`${where}: needs annotation autoscaling.knative.dev/class: ${KPA_CLASS} (scale to zero)`);
  if (text(annotations['autoscaling.knative.dev/max-scale']) === undefined)
    out.push(`${where}: needs annotation autoscaling.knative.dev/max-scale`);
  if (podServiceAccount(service) === undefined)
    out.push(`${where}: needs spec.template.spec.serviceAccountName (a ServiceAccount of its own)`);
  return out;
}

function podServiceAccount(service: ManifestDoc): string | undefined {
  return text(record(record(record(service.object['spec'])['template'])['spec'])['serviceAccountName']);
}

function namesService(ref: unknown, service: ManifestDoc, from: ManifestDoc): boolean {
  if (!isRecord(ref)) return false;
  const s = refOf(service);
  const ns = text(ref['namespace']) ?? refOf(from).namespace;
  const api = text(ref['apiVersion']);
  return (
    ref['kind'] === 'Service' &&
    ref['name'] === s.name &&
    ns === s.namespace &&
    (api ?? KNATIVE_SERVICE_API) === KNATIVE_SERVICE_API
  );
}

/** A Trigger subscribes the Service, or a Broker/Trigger dead-letters to it. */
export function isRouted(set: PackagingSet, service: ManifestDoc): boolean {
  const spec = (d: ManifestDoc): Record<string, unknown> => record(d.object['spec']);
  const dls = (d: ManifestDoc): unknown => record(record(spec(d)['delivery'])['deadLetterSink'])['ref'];
  const triggers = docsOf(set, 'Trigger');
  if (triggers.some((t) => namesService(record(spec(t)['subscriber'])['ref'], service, t))) return true;
  return [...triggers, ...docsOf(set, 'Broker')].some((d) => namesService(dls(d), service, d));
}

function serverlessEntry(set: PackagingSet, name: string): Record<string, unknown> | undefined {
  const functions = record(record(set.serverless?.doc)['functions']);
  const entry = functions[name];
  return isRecord(entry) ? entry : undefined;
}

function exportProblems(set: PackagingSet, name: string): string[] {
  const fn = set.functions.find((f) => f.name === name)!;
  const camel = camelCase(name);
  const out: string[] = [];
  if (!fn.registered(name))
    out.push(
      `functions/${name}/handler.ts: registers no Functions Framework function "${name}" (ff.cloudEvent)`,
    );
  if (typeof fn.handlerExports[camel] !== 'function')
    out.push(`functions/${name}/handler.ts: does not export the handler as a function named ${camel}`);
  if (!fn.registered(camel))
    out.push(
      `functions/${name}/handler.ts: registers no Functions Framework function "${camel}" (Cloud Functions' entry point)`,
    );
  const file = set.serverless?.file ?? 'serverless.yml';
  const entry = serverlessEntry(set, name);
  if (entry === undefined) out.push(`${file}: no entry functions.${name} (handler: ${camel})`);
  else if (entry['handler'] !== camel)
    out.push(
      `${file}: functions.${name}.handler must be ${camel} (the export), found ${JSON.stringify(entry['handler'])}`,
    );
  return out;
}

function functionProblems(set: PackagingSet, name: string): string[] {
  const out = exportProblems(set, name);
  const service = serviceOf(set, name);
  if (service === undefined)
    return [
      ...out,
      `knative/: no Knative Service "${name}" (${KNATIVE_SERVICE_API}) for functions/${name}/handler.ts`,
    ];
  out.push(...commandProblems(set, service, name), ...serviceShapeProblems(service));
  out.push(...configMountOf(set, service).problems);
  if (!isRouted(set, service))
    out.push(`${label(service)}: no Trigger subscribes it and no Broker or Trigger has it as deadLetterSink`);
  return out;
}

/** Knative Services and serverless.yml entries that name no function. */
function strayProblems(set: PackagingSet): string[] {
  const names = new Set(set.functions.map((f) => f.name));
  const out = set.manifests
    .filter((d) => isKnativeService(d) && !names.has(refOf(d).name))
    .map((d) => `${label(d)}: no function "${refOf(d).name}" (functions/${refOf(d).name}/handler.ts)`);
  const file = set.serverless?.file ?? 'serverless.yml';
  for (const key of Object.keys(record(record(set.serverless?.doc)['functions'])))
    if (!names.has(key))
      out.push(`${file}: functions.${key}: no function "${key}" (functions/${key}/handler.ts)`);
  return out;
}

/** The serverless.yml frame: Google provider, plugin, runtime; one http event per function; schedules. */
function serverlessProblems(set: PackagingSet): string[] {
  if (set.serverless === undefined) return ['serverless.yml: missing (the Cloud Functions description)'];
  const { file, doc } = set.serverless;
  const root = record(doc);
  const provider = record(root['provider']);
  const out: string[] = [];
  if (provider['name'] !== 'google') out.push(`${file}: provider.name must be google`);
  if (provider['runtime'] !== 'nodejs22' && provider['runtime'] !== 'nodejs24')
    out.push(`${file}: provider.runtime must be nodejs22 or nodejs24 (a supported LTS)`);
  if (!array(root['plugins']).includes('serverless-google-cloudfunctions'))
    out.push(`${file}: plugins must include serverless-google-cloudfunctions`);
  for (const [key, entry] of Object.entries(record(root['functions'])))
    if (array(record(entry)['events']).length !== 1)
      out.push(`${file}: functions.${key}: needs exactly one event`);
  const names = new Set(set.functions.map((f) => f.name));
  const pings = new Set(docsOf(set, 'PingSource').map((d) => `${refOf(d).namespace ?? ''}/${refOf(d).name}`));
  array(record(record(root['custom'])['landscape'])['schedules']).forEach((s, i) => {
    const fn = text(record(s)['function']) ?? '';
    const ping = text(record(s)['pingSource']);
    if (!names.has(fn)) out.push(`${file}: custom.landscape.schedules[${i}].function: no function "${fn}"`);
    if (ping !== undefined && !pings.has(ping))
      out.push(`${file}: custom.landscape.schedules[${i}].pingSource: no PingSource ${ping} in knative/`);
  });
  return out;
}

/** Every wiring problem of the set. */
export function wiringProblems(set: PackagingSet): string[] {
  return [
    ...set.functions.flatMap((f) => functionProblems(set, f.name)),
    ...strayProblems(set),
    ...serverlessProblems(set),
    ...dockerfileProblems(set),
  ];
}
