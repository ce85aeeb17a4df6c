/**
 * `emit` sends with node:http, not the global fetch: a process that emits does not load undici (its
 * first use compiles llhttp's WebAssembly, ≈ 0.1 CPU-s in a replica that lives for one tick). The
 * control run calls the global fetch after the emit and must see undici loaded, so the probe can
 * tell the two apart. The same holds for the embedded event plane's sender (broker deliveries,
 * source and PingSource sends): httpFetch behind the auth wrappers.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function probe(...args: string[]): {
  status: number;
  afterEmit: boolean;
  afterFetch: boolean;
  auth?: string;
} {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'test/integration/events/undici-probe.ts'), ...args],
    { cwd: REPO_ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 60_000 },
  );
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as ReturnType<typeof probe>;
}

it('emits without loading undici; the global fetch would load it', () => {
  expect(probe()).toEqual({ status: 202, afterEmit: false, afterFetch: false });
  expect(probe('fetch')).toEqual({ status: 202, afterEmit: false, afterFetch: true });
}, 120_000);

it("sends through the embedded plane's sender (httpFetch, each token to its own) without loading undici", () => {
  expect(probe('plane')).toEqual({
    status: 202,
    afterEmit: false,
    afterFetch: false,
    auth: { '/ingress': 'Bearer ingress-token', '/function': 'Bearer function-token' },
  });
}, 120_000);
