/**
 * The responsibility check's emitter: K_SINK_TOKEN (the embedded landscape's broker ingress) is
 * sent as a bearer token when set, nothing otherwise, and never logged.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEvent, type FetchLike } from '../../shared/events/index.js';
import { createLogger } from '../../shared/log/index.js';
import { FunctionNotReadyError } from '../../shared/function/index.js';
import { loadConfig } from './config.js';
import { createCheckInstance } from './handler.js';

const TOKEN = 'sink-token-3f9a';
let dir = '';
let kubeconfig = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'responsibility-check-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {token: x}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function setup(
  env: Record<string, string>,
  status = 202,
): {
  seen: (string | null)[];
  lines: string[];
  instance: ReturnType<typeof createCheckInstance>;
} {
  const seen: (string | null)[] = [];
  const lines: string[] = [];
  const fetch: FetchLike = (_url, init) => {
    seen.push(new Headers(init.headers).get('authorization'));
    return Promise.resolve(new Response(status >= 400 ? 'no' : null, { status }));
  };
  const log = createLogger({
    name: 'test',
    level: 'debug',
    destination: { write: (l: string) => lines.push(l) },
  });
  const instance = createCheckInstance({
    env: () => ({ KUBECONFIG: kubeconfig, K_SINK: 'http://sink.invalid/ns/default', ...env }),
    readFile: () => Promise.resolve(''),
    fetch,
    log,
  });
  return { seen, lines, instance };
}

const event = buildEvent({ id: 'e1', type: 'dev.landscape.deployitem.reconcile', source: '/t' });

describe('responsibility-check emit', () => {
  it('sends K_SINK_TOKEN as a bearer token', async () => {
    const { seen, instance } = setup({ K_SINK_TOKEN: TOKEN });
    const r = await instance.ready();
    expect(r.config.sinkToken).toBe(TOKEN);
    await r.deps.send(event);
    expect(seen).toEqual([`Bearer ${TOKEN}`]);
  });

  it('sends no Authorization header without K_SINK_TOKEN (Knative)', async () => {
    const { seen, instance } = setup({});
    const r = await instance.ready();
    await r.deps.send(event);
    expect(seen).toEqual([null]);
  });

  it('never puts the token into a log line or an error', async () => {
    const refused = setup({ K_SINK_TOKEN: TOKEN }, 401);
    const r = await refused.instance.ready();
    const err = await r.deps.send(event).catch((e: unknown) => e);
    expect(String(err)).toMatch(/HTTP 401/);
    expect(String(err)).not.toContain(TOKEN);
    r.log.info('config', { config: r.config });
    const bad = setup({ K_SINK_TOKEN: TOKEN, K_SINK: 'not a url' });
    const notReady = await bad.instance.ready().catch((e: unknown) => e);
    expect(notReady).toBeInstanceOf(FunctionNotReadyError);
    expect(String(notReady)).not.toContain(TOKEN);
    const lines = [...refused.lines, ...bad.lines];
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).not.toContain(TOKEN);
  });

  it('config: sinkToken is optional and comes from K_SINK_TOKEN', () => {
    const env = { K_SINK: 'http://sink.invalid/' };
    const none = loadConfig(undefined, env);
    expect(none.ok && 'sinkToken' in none.config).toBe(false);
    const set = loadConfig(undefined, { ...env, K_SINK_TOKEN: TOKEN });
    expect(set.ok && set.config.sinkToken).toBe(TOKEN);
  });

  it.each([
    ['neither set: jobs handed out (the embedded default)', {}, true],
    ['HAND_OUT_JOBS=false', { HAND_OUT_JOBS: 'false' }, false],
    [
      "the old function's switch DEPLOYITEM_TRIGGER_ENABLED=false",
      { DEPLOYITEM_TRIGGER_ENABLED: 'false' },
      false,
    ],
    ['both set: HAND_OUT_JOBS wins', { DEPLOYITEM_TRIGGER_ENABLED: 'false', HAND_OUT_JOBS: 'true' }, true],
  ])('config: handOutJobs, %s', (_what, vars, expected) => {
    const r = loadConfig('handOutJobs: true\n', { K_SINK: 'http://sink.invalid/', ...vars });
    expect(r.ok && r.config.handOutJobs).toBe(expected);
  });
});
