import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { functionNames } from '../../local/bundle.js';
import { main, validateConfigs } from '../../scripts/validate-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

let tmp: string;
/** Every function has one ConfigMap in knative/ and one file in config/. */
let functionCount: number;

beforeAll(async () => {
  functionCount = (await functionNames(join(ROOT, 'functions'))).length;
  tmp = mkdtempSync(join(tmpdir(), 'validate-config-'));
  const bad = join(tmp, 'bad-config');
  mkdirSync(bad);
  writeFileSync(join(bad, 'requeue-tick.yaml'), 'batchSize: 0\nemitTimeout: soon\nextra: 1\n');
  writeFileSync(join(bad, 'dead-letter.yaml'), 'logData: maybe\n');
  writeFileSync(join(bad, 'ghost.yaml'), 'a: 1\n');
  mkdirSync(join(tmp, 'empty-config'));
  cpSync(join(ROOT, 'knative'), join(tmp, 'knative'), { recursive: true });
  const file = join(tmp, 'knative', 'runtime', 'requeue-tick.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('    batchSize: 100\n', '    batchSize: 5000\n'));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function lines(): {
  out: string[];
  err: string[];
  io: { out: (l: string) => void; err: (l: string) => void };
} {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

describe('validateConfigs', () => {
  it('accepts the repository: config/ and the ConfigMaps of knative/', async () => {
    const r = await validateConfigs({ root: ROOT });
    expect(r.problems).toEqual([]);
    expect(r.checked).toEqual(
      expect.arrayContaining([
        'config/dead-letter.yaml',
        'config/requeue-tick.yaml',
        'knative/runtime/requeue-tick.yaml: ConfigMap landscape-system/requeue-tick-config: data.config.yaml',
        'knative/runtime/dead-letter.yaml: ConfigMap landscape-system/dead-letter-config: data.config.yaml',
      ]),
    );
  });

  it('lists every problem of every file, with the file', async () => {
    const dir = join(tmp, 'bad-config');
    const r = await validateConfigs({ root: ROOT, configDir: dir });
    expect(r.problems).toEqual([
      `${dir}/ghost.yaml: no function "ghost" (functions/ghost/handler.ts) reads it`,
      `${dir}/dead-letter.yaml: logData: Invalid input: expected boolean, received string`,
      expect.stringMatching(new RegExp(`^${dir}/requeue-tick\\.yaml: batchSize: `)),
      expect.stringMatching(new RegExp(`^${dir}/requeue-tick\\.yaml: emitTimeout: invalid duration "soon"`)),
      expect.stringMatching(new RegExp(`^${dir}/requeue-tick\\.yaml: .*extra`)),
    ]);
  });

  it('checks the defaults of a function without a file', async () => {
    const r = await validateConfigs({ root: ROOT, configDir: join(tmp, 'empty-config') });
    expect(r.problems).toEqual([]);
    expect(r.checked).toHaveLength(functionCount);
  });

  it('checks the ConfigMaps of another knative folder with the environment of their Service', async () => {
    const r = await validateConfigs({ root: ROOT, knativeDir: join(tmp, 'knative') });
    expect(r.problems).toEqual([
      expect.stringMatching(
        /knative\/runtime\/requeue-tick\.yaml: ConfigMap landscape-system\/requeue-tick-config: data\.config\.yaml: batchSize: /,
      ),
    ]);
  });
});

describe('npm run validate-config', () => {
  it('prints what it checked and exits 0 when everything is fine', async () => {
    const o = lines();
    expect(
      await main(['node', 'validate-config', '--root', ROOT, '--config-dir', join(ROOT, 'config')], o.io),
    ).toBe(0);
    expect(o.err).toEqual([]);
    expect(o.out.at(-1)).toBe(`validate-config: ${2 * functionCount} config file(s) checked, 0 problem(s)`);
  });

  it('prints every problem and exits 1', async () => {
    const o = lines();
    const code = await main(
      ['node', 'validate-config', '--root', ROOT, '--config-dir', join(tmp, 'bad-config')],
      o.io,
    );
    expect(code).toBe(1);
    expect(o.err).toHaveLength(6);
    expect(o.err.at(-1)).toBe(`validate-config: ${3 + functionCount} config file(s) checked, 5 problem(s)`);
  });

  it('answers --help without checking', async () => {
    const o = lines();
    expect(await main(['node', 'validate-config', '--help'], o.io)).toBe(0);
    expect(o.out.join('\n')).toContain('--config-dir <dir>');
  });

  it('exits 1 as a process on a bad config folder', async () => {
    const err = await run(
      'npx',
      ['tsx', 'scripts/validate-config.ts', '--config-dir', join(tmp, 'bad-config')],
      {
        cwd: ROOT,
      },
    ).then(
      () => undefined,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('ghost.yaml: no function "ghost"');
  });
});
