import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { deployCli } from '../../scripts/deploy-gcf.js';
import {
  deploySteps,
  envVarsFlag,
  resolveEnvRefs,
  shellLine,
  type RunStep,
  type Step,
} from '../../scripts/deploy-gcf/derive.js';

const O = { project: 'p1', region: 'europe-west1' };

const DOC = {
  service: 's',
  provider: {
    name: 'google',
    runtime: 'nodejs24',
    memorySize: 256,
    timeout: '60s',
    labels: { team: 'x' },
    environment: { K_SINK: '${env:LANDSCAPE_EVENTS_URL}', LEVEL: "${env:LEVEL, 'info'}" },
  },
  functions: {
    'requeue-tick': {
      handler: 'requeueTick',
      maxInstances: 1,
      environment: { CONFIG_FILE: 'config/requeue-tick.yaml', REDIS_URL: '${env:REDIS_URL}' },
      events: [{ http: 'requeue-tick' }],
    },
    'deployer-mock': {
      handler: 'deployerMock',
      memorySize: 512,
      timeout: '120s',
      environment: { CONFIG_FILE: 'config/deployer-mock.yaml' },
      events: [{ http: 'deployer-mock' }],
    },
  },
  custom: {
    landscape: {
      schedules: [
        { function: 'requeue-tick', schedule: '* * * * *', pingSource: 'landscape-system/requeue-tick' },
      ],
    },
  },
};

const runs = (steps: Step[]): RunStep[] => steps.filter((s): s is RunStep => s.kind === 'run');
const flag = (argv: string[], name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

describe('deploySteps', () => {
  const env = { LANDSCAPE_EVENTS_URL: 'https://events.example', REDIS_URL: 'redis://10.0.0.3:6379' };

  it('derives one 2nd-gen deploy per function with its entry point, env, memory, timeout and http trigger', () => {
    const d = deploySteps(DOC, O, env);
    expect(d.problems).toEqual([]);
    expect(d.missing).toEqual([]);
    const deploys = runs(d.steps).filter((s) => s.argv.slice(0, 3).join(' ') === 'gcloud functions deploy');
    expect(deploys.map((s) => s.argv[3])).toEqual(['requeue-tick', 'deployer-mock']);
    expect(deploys[0].argv).toEqual([
      ...['gcloud', 'functions', 'deploy', 'requeue-tick', '--gen2', '--runtime', 'nodejs24'],
      ...['--region', 'europe-west1', '--project', 'p1', '--source', 'dist/gcf/requeue-tick'],
      ...[
        '--entry-point',
        'requeueTick',
        '--trigger-http',
        '--no-allow-unauthenticated',
        '--memory',
        '256Mi',
      ],
      ...['--timeout', '60s', '--max-instances', '1'],
      ...[
        '--set-env-vars',
        'K_SINK=https://events.example,LEVEL=info,CONFIG_FILE=config/requeue-tick.yaml,REDIS_URL=redis://10.0.0.3:6379',
      ],
      ...['--set-secrets', 'K_SINK_TOKEN=landscape-ingress-token:latest', '--update-labels', 'team=x'],
    ]);
    expect(flag(deploys[1].argv, '--memory')).toBe('512Mi');
    expect(flag(deploys[1].argv, '--timeout')).toBe('120s');
    expect(deploys[1].argv).not.toContain('--max-instances');
  });

  it('stages each function folder with its bundle and its config file', () => {
    const stage = deploySteps(DOC, O, env).steps.find(
      (s) => s.kind === 'stage' && s.dir.endsWith('deployer-mock'),
    );
    expect(stage).toEqual({
      kind: 'stage',
      dir: 'dist/gcf/deployer-mock',
      files: [
        { from: 'dist/functions/deployer-mock/index.js', to: 'dist/gcf/deployer-mock/index.js' },
        { from: 'dist/functions/deployer-mock/index.js.map', to: 'dist/gcf/deployer-mock/index.js.map' },
        { from: 'dist/functions/deployer-mock/package.json', to: 'dist/gcf/deployer-mock/package.json' },
        { from: 'config/deployer-mock.yaml', to: 'dist/gcf/deployer-mock/config/deployer-mock.yaml' },
      ],
    });
  });

  it('builds the image and deploys the event service first, always on, routing to the function URLs', () => {
    const [build, service] = runs(deploySteps(DOC, O, env).steps);
    const image = 'europe-west1-docker.pkg.dev/p1/landscape/landscape-functions:latest';
    expect(build.argv).toEqual([
      'gcloud',
      'builds',
      'submit',
      '--project',
      'p1',
      '--region',
      'europe-west1',
      '--tag',
      image,
      '.',
    ]);
    expect(service.argv.slice(0, 6)).toEqual([
      'gcloud',
      'run',
      'deploy',
      'landscape-events',
      '--image',
      image,
    ]);
    expect(flag(service.argv, '--args')?.split(',')).toEqual([
      '/app/events/main.js',
      ...['--manifests', '/app/knative', '--kubeconfig', '/var/run/landscape/kubeconfig'],
      ...['--function-url', 'https://europe-west1-p1.cloudfunctions.net/{name}', '--host', '0.0.0.0'],
      ...['--state-dir', '/tmp/landscape-events'],
    ]);
    expect(flag(service.argv, '--min-instances')).toBe('1');
    expect(service.argv).toContain('--no-cpu-throttling');
    const withImage = runs(deploySteps(DOC, { ...O, image: 'img:1' }, env).steps);
    expect(withImage[0].argv.slice(0, 3)).toEqual(['gcloud', 'run', 'deploy']);
    expect(flag(withImage[0].argv, '--image')).toBe('img:1');
  });

  it('creates a Scheduler job per schedule, or updates it when it exists', () => {
    const job = runs(deploySteps(DOC, O, env).steps).at(-1)!;
    expect(job.argv.slice(0, 6)).toEqual([
      'gcloud',
      'scheduler',
      'jobs',
      'create',
      'http',
      'landscape-requeue-tick',
    ]);
    expect(flag(job.argv, '--uri')).toBe('https://europe-west1-p1.cloudfunctions.net/requeue-tick');
    expect(flag(job.argv, '--schedule')).toBe('* * * * *');
    expect(flag(job.argv, '--headers')).toContain('ce-type=dev.knative.sources.ping');
    expect(flag(job.argv, '--oidc-service-account-email')).toBe(
      'landscape-invoker@p1.iam.gserviceaccount.com',
    );
    expect(job.unless?.slice(0, 5)).toEqual([
      'gcloud',
      'scheduler',
      'jobs',
      'describe',
      'landscape-requeue-tick',
    ]);
    expect(job.orElse?.slice(0, 4)).toEqual(['gcloud', 'scheduler', 'jobs', 'update']);
    expect(job.orElse).toContain('--update-headers');
  });

  it('names every unset ${env:} value and every problem', () => {
    const bad = {
      ...DOC,
      provider: { ...DOC.provider, runtime: 'nodejs20' },
      functions: { ...DOC.functions, x: { events: [] } },
    };
    const d = deploySteps(bad, O, {});
    expect(d.missing).toEqual(['LANDSCAPE_EVENTS_URL', 'REDIS_URL']);
    expect(d.problems).toEqual([
      'provider.runtime: nodejs20 is not a supported runtime (nodejs22, nodejs24)',
      'functions.x: no handler',
      'functions.x: needs exactly one http event (the event service and the Scheduler post to it)',
    ]);
  });

  it('passes concurrency and cpu (2nd generation), and refuses a concurrency that is no whole number from 1 to 1000', () => {
    const fn = (extra: Record<string, unknown>): Record<string, unknown> => ({
      handler: 'probeTick',
      events: [{ http: 'probe-tick' }],
      ...extra,
    });
    const ok = deploySteps({ ...DOC, custom: {}, functions: { p: fn({ concurrency: 10, cpu: 1 }) } }, O, env);
    expect(ok.problems).toEqual([]);
    const [deploy] = runs(ok.steps).filter((s) => s.argv[3] === 'p');
    expect(flag(deploy.argv, '--concurrency')).toBe('10');
    expect(flag(deploy.argv, '--cpu')).toBe('1');
    const bad = deploySteps(
      {
        ...DOC,
        custom: {},
        functions: { a: fn({ concurrency: 1001 }), b: fn({ concurrency: 0 }), c: fn({ concurrency: 'x' }) },
      },
      O,
      env,
    );
    expect(bad.problems).toEqual([
      'functions.a: concurrency must be a whole number from 1 to 1000',
      'functions.b: concurrency must be a whole number from 1 to 1000',
      'functions.c: concurrency must be a whole number from 1 to 1000',
    ]);
    const plain = runs(deploySteps(DOC, O, env).steps).flatMap((s) => s.argv);
    expect(plain).not.toContain('--concurrency');
    expect(plain).not.toContain('--cpu');
  });

  it("derives a deploy for every function of the repository's serverless.yml", () => {
    const doc = parseYaml(readFileSync('serverless.yml', 'utf8')) as {
      functions: Record<string, { handler: string }>;
    };
    const d = deploySteps(doc, O, { LANDSCAPE_EVENTS_URL: 'https://e', REDIS_URL: 'redis://r' });
    expect(d.problems).toEqual([]);
    const deploys = runs(d.steps).filter((s) => s.argv[2] === 'deploy' && s.argv[1] === 'functions');
    expect(deploys.map((s) => [s.argv[3], flag(s.argv, '--entry-point'), flag(s.argv, '--runtime')])).toEqual(
      Object.entries(doc.functions).map(([name, f]) => [name, f.handler, 'nodejs24']),
    );
  });
});

describe('helpers', () => {
  it('resolves ${env:X} and its default', () => {
    const missing = new Set<string>();
    expect(resolveEnvRefs("${env:A}/${env:B, 'b'}/${env:C}", { A: 'a' }, missing)).toBe('a/b/$C');
    expect([...missing]).toEqual(['C']);
  });

  it("escapes --set-env-vars with gcloud's ^;^ when a value holds a comma", () => {
    expect(envVarsFlag({ A: '1', B: '2' })).toBe('A=1,B=2');
    expect(envVarsFlag({ A: '1,2', B: '3' })).toBe('^;^A=1,2;B=3');
  });

  it('quotes for the shell only what needs it', () => {
    expect(shellLine(['gcloud', '--schedule', '* * * * *', "it's"])).toBe(
      `gcloud --schedule '* * * * *' 'it'\\''s'`,
    );
  });
});

describe('npm run deploy:gcf', () => {
  const io = (): { out: string[]; err: string[]; io: Parameters<typeof deployCli>[2] } => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
  };

  it('--dry-run prints the commands and runs nothing', async () => {
    const t = io();
    const exec = jest.fn(() => Promise.resolve());
    const code = await deployCli(['--project', 'p1', '--region', 'r1', '--dry-run'], {}, { ...t.io, exec });
    expect(code).toBe(0);
    expect(exec).not.toHaveBeenCalled();
    expect(t.out.filter((l) => l.startsWith('gcloud functions deploy'))).toHaveLength(
      Object.keys((parseYaml(readFileSync('serverless.yml', 'utf8')) as { functions: object }).functions)
        .length,
    );
    expect(t.err).toContain('note: $REDIS_URL is not set; the commands show it as $REDIS_URL');
  });

  it('without --dry-run, says clearly that gcloud is missing and runs nothing', async () => {
    const t = io();
    const exec = jest.fn(() => Promise.resolve());
    const env = { LANDSCAPE_EVENTS_URL: 'https://e', REDIS_URL: 'redis://r' };
    const code = await deployCli(['--project', 'p1', '--region', 'r1'], env, {
      ...t.io,
      exec,
      haveGcloud: () => Promise.resolve(false),
    });
    expect(code).toBe(1);
    expect(exec).not.toHaveBeenCalled();
    expect(t.err).toEqual([
      'not deployed: gcloud is missing (install the Google Cloud CLI, or use --dry-run to print the commands)',
    ]);
  });

  it('without --dry-run, stops before anything when a ${env:} value is unset', async () => {
    const t = io();
    const code = await deployCli(
      ['--project', 'p1', '--region', 'r1'],
      {},
      { ...t.io, haveGcloud: () => Promise.resolve(true) },
    );
    expect(code).toBe(1);
    expect(t.err).toEqual([
      'not deployed: set $LANDSCAPE_EVENTS_URL, $REDIS_URL (serverless.yml ${env:...} values)',
    ]);
  });

  it('refuses without --project and --region', async () => {
    const t = io();
    expect(await deployCli(['--dry-run'], {}, t.io)).toBe(2);
    expect(t.err.join('\n')).toMatch(/--project/);
  });
});
