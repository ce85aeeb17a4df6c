import { resolve } from 'node:path';
import { ORPHAN_GUARD, preloadArgs } from './replica.js';

describe('preloadArgs', () => {
  it.each<[string, string, readonly string[], string[]]>([
    [
      'a CommonJS bundle: its preload.cjs (orphan guard and code cache)',
      '/s/functions/f/server.cjs',
      ['/s/functions/f/preload.cjs'],
      ['--require', '/s/functions/f/preload.cjs'],
    ],
    [
      'an entry without a preload: the guard as an ES module import',
      '/s/x/server.js',
      [],
      ['--import', ORPHAN_GUARD],
    ],
    [
      "another folder's preload does not count",
      '/s/functions/g/server.js',
      ['/s/functions/f/preload.cjs'],
      ['--import', ORPHAN_GUARD],
    ],
    [
      'a relative entry: the preload by its absolute path',
      'fns/f/server.cjs',
      [resolve('fns/f/preload.cjs')],
      ['--require', resolve('fns/f/preload.cjs')],
    ],
  ])('%s', (_what, entry, files, args) => {
    expect(preloadArgs(entry, (p) => files.includes(p))).toEqual(args);
  });
});
