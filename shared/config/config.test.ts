import * as z from './zod.js';
import { durationSchema, envValue, loadConfigWith, parseConfigFile, readConfigFile } from './index.js';

describe('envValue', () => {
  it.each([
    ['string', ' a ', ' a '],
    ['number', '42', 42],
    ['number', '-1.5', -1.5],
    ['number', '4x', '4x'],
    ['boolean', 'true', true],
    ['boolean', 'false', false],
    ['boolean', 'yes', 'yes'],
    ['list', 'a, b,,c ', ['a', 'b', 'c']],
  ] as const)('%s %j → %j', (kind, raw, want) => {
    expect(envValue(kind, raw)).toEqual(want);
  });
});

describe('parseConfigFile', () => {
  it.each([
    [undefined, {}, []],
    ['  \n', {}, []],
    ['~', {}, []],
    ['a: 1', { a: 1 }, []],
    ['- 1', {}, ['config file: the document must be a mapping']],
    ['a: [1', {}, [expect.stringMatching(/^config file: not YAML: /)]],
  ])('%j', (text, want, problems) => {
    const got: string[] = [];
    expect(parseConfigFile(text, got)).toEqual(want);
    expect(got).toEqual(problems);
  });
});

describe('loadConfigWith', () => {
  const Schema = z.strictObject({
    size: z.number().int().min(1).default(5),
    names: z.array(z.string()).default([]),
    on: z.boolean().default(false),
    url: z.string().min(1),
  });
  const OVERRIDES = {
    X_SIZE: { key: 'size', kind: 'number' },
    X_NAMES: { key: 'names', kind: 'list' },
    X_ON: { key: 'on', kind: 'boolean' },
    X_URL: { key: 'url' },
  } as const;

  it('applies defaults, the file, then the environment', () => {
    expect(
      loadConfigWith(Schema, OVERRIDES, 'size: 2\nnames: [a]', { X_URL: 'u', X_ON: 'true', X_NAMES: '' }),
    ).toEqual({
      ok: true,
      config: { size: 2, names: ['a'], on: true, url: 'u' },
    });
    expect(loadConfigWith(Schema, OVERRIDES, 'size: 2', { X_URL: 'u', X_SIZE: '7' })).toMatchObject({
      ok: true,
      config: { size: 7 },
    });
  });

  it('lists every problem of the file and the environment', () => {
    const r = loadConfigWith(Schema, OVERRIDES, 'size: 0\nextra: 1', { X_ON: 'maybe' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.sort()).toEqual([
      '(root): Unrecognized key: "extra"',
      'on: Invalid input: expected boolean, received string',
      'size: Too small: expected number to be >=1',
      'url: Invalid input: expected string, received undefined',
    ]);
  });

  it('reports a file that is not a mapping even when the environment satisfies the schema', () => {
    const r = loadConfigWith(Schema, OVERRIDES, '- a', { X_URL: 'u' });
    expect(r).toEqual({ ok: false, problems: ['config file: the document must be a mapping'] });
  });
});

describe('readConfigFile', () => {
  it('reads CONFIG_FILE, or nothing when it is not set', async () => {
    const read = (p: string): Promise<string> => Promise.resolve(`text of ${p}`);
    await expect(readConfigFile({ CONFIG_FILE: '/c.yaml' }, read)).resolves.toEqual({
      path: '/c.yaml',
      text: 'text of /c.yaml',
    });
    await expect(readConfigFile({}, read)).resolves.toEqual({});
  });
});

describe('durationSchema (Go durations, the one duration format of config files)', () => {
  const Schema = z.strictObject({ wait: durationSchema });
  it.each([
    ['1m30s', 90_000],
    ['0s', 0],
    ['0', 0],
    ['300ms', 300],
    ['2h', 7_200_000],
    [' 5s ', 5_000],
    [1500, 1500],
    [0, 0],
  ] as const)('%j → %d ms', (wait, ms) => {
    expect(loadConfigWith(Schema, {}, `wait: ${JSON.stringify(wait)}`, {})).toEqual({
      ok: true,
      config: { wait: ms },
    });
  });

  it.each([
    ['1d', 'wait: invalid duration "1d": unknown unit "d"; want a Go duration such as 300ms'],
    ['10', 'wait: invalid duration "10": missing unit'],
    ['-5s', 'wait: must not be negative, got "-5s"'],
    [1.5, 'wait: must be a Go duration'],
  ] as const)('%j is refused, naming the key and the format', (wait, start) => {
    const r = loadConfigWith(Schema, {}, `wait: ${JSON.stringify(wait)}`, {});
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems[0]).toMatch(new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
