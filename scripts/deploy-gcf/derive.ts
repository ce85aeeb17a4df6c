/**
 * What `npm run deploy:gcf` does, derived from the parsed serverless.yml (pure): the 2nd-gen
 * Cloud Run functions deploys (`gcloud functions deploy NAME --gen2 ...`, the flags of
 * cloud.google.com/sdk/gcloud/reference/functions/deploy), the event service as an always-on
 * Cloud Run service (`gcloud run deploy`), and the Cloud Scheduler jobs that stand in for the
 * PingSources. The serverless-google-cloudfunctions plugin's keys are read as the plugin reads them
 * (serverless/serverless-google-cloudfunctions package/lib/compileFunctions.js: `handler` is the
 * entry point, `memorySize` in MB, `timeout` as "60s", `maxInstances`, `environment` of the
 * provider and of the function merged, `labels`, one `http` event), `${env:NAME}` and
 * `${env:NAME, 'default'}` from the environment given. Two keys of the 2nd generation that the
 * plugin (1st generation) does not know: `concurrency` (requests one instance serves at once,
 * `--concurrency`; more than 1 needs a whole vCPU, which gcloud checks) and `cpu` (`--cpu`).
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface DeployOptions {
  project: string;
  region: string;
  /** The image with /app/events/main.js and /app/knative (the Dockerfile); built when absent. */
  image?: string;
  /** The service account of the event service and the Scheduler jobs (OIDC to the functions). */
  invoker?: string;
  /** Secret Manager secret holding the kubeconfig the event service watches. */
  kubeconfigSecret?: string;
  /**
   * Secret Manager secret holding the bearer token of the event service's ingress
   * (LANDSCAPE_INGRESS_TOKEN there, K_SINK_TOKEN in the functions).
   */
  ingressTokenSecret?: string;
  /** The Cloud Run service name of the event service. */
  eventService?: string;
  /** Where each function's source folder is staged (`<dir>/<name>`). */
  stageDir?: string;
}

/** A folder to fill before a deploy: files copied from the repository. */
export interface StageStep {
  kind: 'stage';
  dir: string;
  files: { from: string; to: string }[];
}

/** A gcloud command; `orElse` runs instead when `unless` succeeds (create, or update when it exists). */
export interface RunStep {
  kind: 'run';
  argv: string[];
  unless?: string[];
  orElse?: string[];
}

export type Step = StageStep | RunStep;

export interface Derived {
  steps: Step[];
  /** `${env:NAME}` without a value in the environment (shown as `$NAME` in the commands). */
  missing: string[];
  problems: string[];
}

export const RUNTIMES = ['nodejs22', 'nodejs24'] as const;
const DEFAULT_MEMORY_MB = 256;

type Json = Record<string, unknown>;
const rec = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?:\s*,\s*'([^']*)')?\}/g;

/** A serverless value with `${env:X}` / `${env:X, 'default'}` resolved; unknown names go to `missing`. */
export function resolveEnvRefs(value: string, env: Env, missing: Set<string>): string {
  return value.replace(ENV_REF, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return `$${name}`;
  });
}

/** `--set-env-vars` of a map; gcloud's `^DELIM^` escape when a value holds a comma. */
export function envVarsFlag(vars: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(vars).map(([k, v]) => `${k}=${v}`);
  return pairs.some((p) => p.includes(',')) ? `^;^${pairs.join(';')}` : pairs.join(',');
}

function functionUrl(o: DeployOptions, name: string): string {
  return `https://${o.region}-${o.project}.cloudfunctions.net/${name}`;
}

export function defaultImage(o: DeployOptions): string {
  return `${o.region}-docker.pkg.dev/${o.project}/landscape/landscape-functions:latest`;
}

function tokenSecret(o: DeployOptions): string {
  return `${o.ingressTokenSecret ?? 'landscape-ingress-token'}:latest`;
}

function invokerOf(o: DeployOptions): string {
  return o.invoker ?? `landscape-invoker@${o.project}.iam.gserviceaccount.com`;
}

interface FunctionEntry {
  name: string;
  handler: string;
  memoryMb: number;
  timeout?: string;
  maxInstances?: string;
  concurrency?: string;
  cpu?: string;
  env: Record<string, string>;
}

/** `concurrency` a whole number (gcloud checks it against the CPU: more than 1 needs a whole vCPU). */
function concurrencyProblems(name: string, e: Json): string[] {
  const concurrency = Number(str(e['concurrency']) ?? '1');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000)
    return [`functions.${name}: concurrency must be a whole number from 1 to 1000`];
  return [];
}

function entryProblems(name: string, e: Json): string[] {
  const out: string[] = [];
  if (!str(e['handler'])) out.push(`functions.${name}: no handler`);
  out.push(...concurrencyProblems(name, e));
  const events = arr(e['events']);
  if (events.length !== 1 || str(rec(events[0])['http']) === undefined)
    out.push(
      `functions.${name}: needs exactly one http event (the event service and the Scheduler post to it)`,
    );
  return out;
}

function entries(doc: Json, env: Env, missing: Set<string>, problems: string[]): FunctionEntry[] {
  const provider = rec(doc['provider']);
  const resolve = (v: unknown): string => resolveEnvRefs(str(v) ?? '', env, missing);
  return Object.entries(rec(doc['functions'])).flatMap(([name, raw]) => {
    const e = rec(raw);
    const p = entryProblems(name, e);
    problems.push(...p);
    if (p.length > 0) return [];
    const vars = { ...rec(provider['environment']), ...rec(e['environment']) };
    const timeout = str(e['timeout'] ?? provider['timeout']);
    const maxInstances = str(e['maxInstances']);
    const concurrency = str(e['concurrency']);
    const cpu = str(e['cpu']);
    return [
      {
        name,
        handler: str(e['handler'])!,
        memoryMb: Number(e['memorySize'] ?? provider['memorySize'] ?? DEFAULT_MEMORY_MB),
        ...(timeout ? { timeout } : {}),
        ...(maxInstances ? { maxInstances } : {}),
        ...(concurrency ? { concurrency } : {}),
        ...(cpu ? { cpu } : {}),
        env: Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, resolve(v)])),
      },
    ];
  });
}

function labelsFlag(doc: Json): string[] {
  const labels = Object.entries(rec(rec(doc['provider'])['labels'])).map(([k, v]) => `${k}=${str(v) ?? ''}`);
  return labels.length > 0 ? ['--update-labels', labels.join(',')] : [];
}

function functionSteps(doc: Json, f: FunctionEntry, runtime: string, o: DeployOptions): Step[] {
  const dir = `${o.stageDir ?? 'dist/gcf'}/${f.name}`;
  const bundle = `dist/functions/${f.name}`;
  const config = f.env['CONFIG_FILE'];
  const stage: StageStep = {
    kind: 'stage',
    dir,
    files: [
      { from: `${bundle}/index.js`, to: `${dir}/index.js` },
      { from: `${bundle}/index.js.map`, to: `${dir}/index.js.map` },
      { from: `${bundle}/package.json`, to: `${dir}/package.json` },
      ...(config ? [{ from: config, to: `${dir}/${config}` }] : []),
    ],
  };
  const argv = [
    ...['gcloud', 'functions', 'deploy', f.name, '--gen2', '--runtime', runtime],
    ...['--region', o.region, '--project', o.project, '--source', dir, '--entry-point', f.handler],
    ...['--trigger-http', '--no-allow-unauthenticated', '--memory', `${f.memoryMb}Mi`],
    ...(f.timeout ? ['--timeout', f.timeout] : []),
    ...(f.maxInstances ? ['--max-instances', f.maxInstances] : []),
    ...(f.cpu ? ['--cpu', f.cpu] : []),
    ...(f.concurrency ? ['--concurrency', f.concurrency] : []),
    ...(Object.keys(f.env).length > 0 ? ['--set-env-vars', envVarsFlag(f.env)] : []),
    ...['--set-secrets', `K_SINK_TOKEN=${tokenSecret(o)}`],
    ...labelsFlag(doc),
  ];
  return [stage, { kind: 'run', argv }];
}

function eventServiceSteps(o: DeployOptions): Step[] {
  const image = o.image ?? defaultImage(o);
  const build: Step[] = o.image
    ? []
    : [
        {
          kind: 'run',
          argv: [
            'gcloud',
            'builds',
            'submit',
            '--project',
            o.project,
            '--region',
            o.region,
            '--tag',
            image,
            '.',
          ],
        },
      ];
  const kubeconfig = '/var/run/landscape/kubeconfig';
  const args = [
    '/app/events/main.js',
    ...['--manifests', '/app/knative', '--kubeconfig', kubeconfig],
    ...[
      '--function-url',
      functionUrl(o, '{name}'),
      '--host',
      '0.0.0.0',
      '--state-dir',
      '/tmp/landscape-events',
    ],
  ];
  const run: RunStep = {
    kind: 'run',
    argv: [
      ...['gcloud', 'run', 'deploy', o.eventService ?? 'landscape-events', '--image', image],
      ...['--region', o.region, '--project', o.project, '--command', 'node', '--args', args.join(',')],
      // always on: the watches live in the process (no CPU throttling between requests)
      ...['--min-instances', '1', '--max-instances', '1', '--no-cpu-throttling'],
      // the image's NODE_OPTIONS are the replicas' (their preload, and their V8 flags if any,
      // shared/serve/v8-flags.ts): the event plane keeps source maps only
      ...['--set-env-vars', 'NODE_OPTIONS=--enable-source-maps'],
      ...['--service-account', invokerOf(o), '--allow-unauthenticated'],
      ...[
        '--set-secrets',
        `${kubeconfig}=${o.kubeconfigSecret ?? 'landscape-kubeconfig'}:latest,LANDSCAPE_INGRESS_TOKEN=${tokenSecret(o)}`,
      ],
    ],
  };
  return [...build, run];
}

function scheduleSteps(doc: Json, o: DeployOptions, names: Set<string>, problems: string[]): Step[] {
  const schedules = arr(rec(rec(doc['custom'])['landscape'])['schedules']);
  return schedules.flatMap((raw, i): Step[] => {
    const s = rec(raw);
    const fn = str(s['function']) ?? '';
    const schedule = str(s['schedule']);
    if (!names.has(fn) || !schedule) {
      problems.push(`custom.landscape.schedules[${i}]: needs a function of functions: and a schedule`);
      return [];
    }
    const [ns, ping] = (str(s['pingSource']) ?? `landscape-system/${fn}`).split('/');
    const headers = [
      'ce-specversion=1.0',
      'ce-type=dev.knative.sources.ping',
      `ce-id=${ping}`,
      `ce-source=/apis/v1/namespaces/${ns}/pingsources/${ping}`,
      'content-type=application/json',
    ].join(',');
    const where = ['--location', o.region, '--project', o.project];
    const flags = [
      ...['--schedule', schedule, '--uri', functionUrl(o, fn), '--http-method', 'POST', '--headers', headers],
      ...['--message-body', JSON.stringify({ job: ping }), '--oidc-service-account-email', invokerOf(o)],
    ];
    const job = `landscape-${ping}`;
    return [
      {
        kind: 'run',
        argv: ['gcloud', 'scheduler', 'jobs', 'create', 'http', job, ...where, ...flags],
        unless: ['gcloud', 'scheduler', 'jobs', 'describe', job, ...where],
        orElse: [
          'gcloud',
          'scheduler',
          'jobs',
          'update',
          'http',
          job,
          ...where,
          ...flags.map((f) => (f === '--headers' ? '--update-headers' : f)),
        ],
      },
    ];
  });
}

/** Every step of a deployment, in order: the event service first (K_SINK of the functions), then the functions, then the schedules. */
export function deploySteps(serverless: unknown, o: DeployOptions, env: Env): Derived {
  const doc = rec(serverless);
  const problems: string[] = [];
  const missing = new Set<string>();
  const runtime = str(rec(doc['provider'])['runtime']) ?? '';
  if (!(RUNTIMES as readonly string[]).includes(runtime))
    problems.push(
      `provider.runtime: ${runtime || '(none)'} is not a supported runtime (${RUNTIMES.join(', ')})`,
    );
  const fns = entries(doc, env, missing, problems);
  const steps: Step[] = [
    ...eventServiceSteps(o),
    ...fns.flatMap((f) => functionSteps(doc, f, runtime, o)),
    ...scheduleSteps(doc, o, new Set(fns.map((f) => f.name)), problems),
  ];
  return { steps, missing: [...missing].sort(), problems };
}

/** A command as a shell line (for --dry-run and messages). */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./{}-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
