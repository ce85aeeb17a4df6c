/**
 * The import rules of eslint-rules/index.js: a table of allowed and refused imports between the
 * layers, a planted cycle found, and ESLint itself failing on a planted violation.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import landscape, { cycleThrough, layerViolation } from '../../eslint-rules/index.js';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('layers', () => {
  const allowed: [string, string][] = [
    ['functions/weeder/handler.ts', 'functions/weeder/decide.ts'],
    ['functions/weeder/handler.ts', 'shared/kube/client.ts'],
    ['functions/weeder/handler.ts', 'packages/apimachinery/src/index.ts'],
    ['triggers/plane/main.ts', 'triggers/broker/broker.ts'],
    ['triggers/plane/main.ts', 'shared/kube/client.ts'],
    ['local/main.ts', 'triggers/plane/main.ts'],
    ['local/main.ts', 'packages/kube-apiserver/src/index.ts'],
    ['local/drill/run.ts', 'functions/probe-tick/handler.ts'],
    ['packages/kube-apiserver/src/cluster.ts', 'packages/apimachinery/src/index.ts'],
    ['test/e2e/get.test.ts', 'local/landscape.ts'],
    ['bench/index.ts', 'functions/schedule-shoot/filters.ts'],
    ['shared/kube/client.test.ts', 'test/support/timing.ts'],
  ];
  it.each(allowed)('%s may import %s', (from, to) => {
    expect(layerViolation(from, to)).toBeUndefined();
  });

  const refused: [string, string, RegExp][] = [
    ['shared/kube/client.ts', 'functions/weeder/decide.ts', /shared\/ is below functions/],
    ['shared/kube/client.ts', 'triggers/broker/broker.ts', /shared\/ is below triggers/],
    ['functions/weeder/weed.ts', 'triggers/broker/broker.ts', /a function imports only itself/],
    ['functions/weeder/weed.ts', 'functions/probe-tick/handler.ts', /a function imports only itself/],
    ['triggers/plane/main.ts', 'functions/weeder/handler.ts', /triggers\/ imports only/],
    ['triggers/plane/main.ts', 'local/landscape.ts', /only the tooling/],
    ['shared/kube/client.ts', 'packages/kube-apiserver/src/index.ts', /embedded API server/],
    ['functions/weeder/weed.ts', 'packages/kube-apiserver/src/index.ts', /embedded API server/],
    ['packages/apimachinery/src/index.ts', 'shared/kube/client.ts', /a package imports only itself/],
    ['packages/kube-apiserver/src/cluster.ts', 'shared/api/core.ts', /a package imports only itself/],
    ['local/drill/run.ts', 'functions/probe-tick/tick.ts', /through its handler\.ts/],
    ['functions/weeder/weed.ts', 'test/support/timing.ts', /does not import test/],
  ];
  it.each(refused)('%s may not import %s', (from, to, why) => {
    expect(layerViolation(from, to)).toMatch(why);
  });
});

describe('no-cycle', () => {
  it('finds a planted cycle and its path, and none where there is none', () => {
    const g = new Map([
      ['/a.ts', new Set(['/b.ts'])],
      ['/b.ts', new Set(['/c.ts'])],
      ['/c.ts', new Set(['/a.ts', '/d.ts'])],
      ['/d.ts', new Set<string>()],
    ]);
    expect(cycleThrough('/a.ts', '/b.ts', g)).toHaveLength(4);
    // e.ts imports d.ts, which imports nothing: no way back
    expect(cycleThrough('/e.ts', '/d.ts', g)).toBeUndefined();
  });
});

describe('npm run lint', () => {
  it('reports a planted violation: shared/ importing a function', async () => {
    // the house's rules as eslint.config.js turns them on, without the type-aware rest
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { landscape },
          rules: { 'landscape/layers': 'error', 'landscape/no-cycle': 'error' },
        },
      ],
    });
    const results = await eslint.lintText(
      "import { SERVICE_NAME_LABEL } from '../../functions/weeder/decide.js';\nexport const l = SERVICE_NAME_LABEL;\n",
      { filePath: `${ROOT}shared/kube/planted.ts` },
    );
    const messages = results[0].messages.filter((m) => m.ruleId === 'landscape/layers');
    expect(messages.map((m) => m.message)).toEqual([expect.stringMatching(/shared\/ is below functions/)]);
  }, 120_000);
});
