import { defaultConfig, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has defaults that never log the data', () => {
    expect(loadConfig(undefined, {})).toEqual({
      ok: true,
      config: { logData: false, maxDataChars: 2048, maxErrorDataChars: 512, logLevel: 'info' },
    });
    expect(defaultConfig()).toEqual({
      logData: false,
      maxDataChars: 2048,
      maxErrorDataChars: 512,
      logLevel: 'info',
    });
  });

  it('reads the file and lets the environment override single keys', () => {
    const file = 'logData: true\nmaxErrorDataChars: 100\nlogLevel: debug\n';
    const r = loadConfig(file, {
      LOG_LEVEL: 'warn',
      DEAD_LETTER_MAX_DATA_CHARS: '64',
      DEAD_LETTER_LOG_DATA: 'false',
    });
    expect(r).toEqual({
      ok: true,
      config: { logData: false, maxDataChars: 64, maxErrorDataChars: 100, logLevel: 'warn' },
    });
  });

  it('lists every problem', () => {
    const file = 'logData: yes please\nmaxDataChars: -1\nmaxErrorDataChars: 1.5\nlogLevel: loud\nextra: 1\n';
    const r = loadConfig(file, {});
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^logData: /),
        expect.stringMatching(/^maxDataChars: /),
        expect.stringMatching(/^maxErrorDataChars: /),
        expect.stringMatching(/^logLevel: /),
        expect.stringMatching(/extra/),
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('reports an override that is not a number or a boolean with the key it sets', () => {
    const r = loadConfig(undefined, {
      DEAD_LETTER_MAX_ERROR_DATA_CHARS: 'lots',
      DEAD_LETTER_LOG_DATA: 'maybe',
    });
    expect(r.ok ? [] : r.problems).toEqual([
      expect.stringMatching(/^logData: /),
      expect.stringMatching(/^maxErrorDataChars: /),
    ]);
  });

  it('reports YAML that is not a mapping', () => {
    expect(loadConfig('- a\n', {})).toEqual({
      ok: false,
      problems: ['config file: the document must be a mapping'],
    });
    expect(loadConfig('a: [', {}).ok).toBe(false);
    expect(loadConfig('# only a comment\n', {}).ok).toBe(true);
  });
});
