/**
 * `npm start` refuses to start on a machine or input it cannot work with, and says why in one
 * line on stderr, exit code 1, nothing left running: no redis-server and no REDIS_URL, a
 * knative/ folder with a broken manifest, a kubeconfig that is not there.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, scaled } from './support.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'startup-errors-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function npmStart(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; err: string }> {
  const child = spawn(
    process.execPath,
    ['scripts/launch.mjs', 'local/main.ts', '--state-dir', join(dir, 'state'), ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, REDIS_URL: undefined, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, err })));
}

it(
  'says how to get Redis when redis-server is not installed and REDIS_URL is not set',
  async () => {
    const r = await npmStart(['--no-default-clusters', '--status-interval', '0'], {
      PATH: join(dir, 'empty-path'),
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'npm start failed: redis-server is not installed and REDIS_URL is not set: install it (Debian: apt-get install redis-server) or set REDIS_URL=redis://host:port',
    );
  },
  scaled(60_000),
);

it(
  'lists the problems of a broken knative/ folder and starts nothing',
  async () => {
    const knative = join(dir, 'knative', 'family');
    await mkdir(knative, { recursive: true });
    await writeFile(
      join(knative, 'trigger.yaml'),
      'apiVersion: eventing.knative.dev/v1\nkind: Trigger\nmetadata: {name: t, namespace: x}\nspec:\n  broker: default\n  subscriber: {}\n  delivery: {backoffDelay: five seconds}\n',
    );
    const r = await npmStart([
      '--no-default-clusters',
      '--knative-dir',
      join(dir, 'knative'),
      '--status-interval',
      '0',
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/npm start failed: .*family\/trigger\.yaml/s);
    expect(r.err).toContain('backoffDelay');
  },
  scaled(60_000),
);

it(
  'names a --kubeconfig file that does not exist',
  async () => {
    const missing = join(dir, 'no-such-kubeconfig');
    const r = await npmStart(['--kubeconfig', missing]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`npm start failed:`);
    expect(r.err).toContain(missing);
  },
  scaled(60_000),
);
