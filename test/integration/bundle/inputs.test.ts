/**
 * The inputs a cached bundle is checked against (local/bundle-inputs.ts): every input of its
 * esbuild run, except another function's files that this bundle does not contain.
 */
import { resolve } from 'node:path';
import type { Metafile } from 'esbuild';
import { inputsOf, type InputTarget } from '../../../local/bundle-inputs.js';

const a: InputTarget = { dir: 'out/a', source: 'fns/a' };
const b: InputTarget = { dir: 'out/b', source: 'fns/b' };
const ab: InputTarget = { dir: 'out/ab', source: 'fns/ab' };

function input(): Metafile['inputs'][string] {
  return { bytes: 1, imports: [] };
}

function output(inputs: string[]): Metafile['outputs'][string] {
  return {
    bytes: 1,
    inputs: Object.fromEntries(inputs.map((p) => [p, { bytesInOutput: 1 }])),
    imports: [],
    exports: [],
    entryPoint: undefined,
  };
}

const metafile: Metafile = {
  inputs: Object.fromEntries(
    [
      'fns/a/handler.ts',
      'fns/b/handler.ts',
      'fns/b/config.ts',
      'fns/ab/handler.ts',
      'shared/x.ts',
      'shared/unused.ts',
    ].map((p) => [p, input()]),
  ),
  outputs: {
    'out/a/server.cjs': output(['fns/a/handler.ts', 'shared/x.ts', 'fns/b/config.ts']),
    'out/a/preload.cjs': output(['shared/preload.ts']),
    'out/b/server.cjs': output(['fns/b/handler.ts', 'fns/b/config.ts']),
    'out/ab/server.cjs': output(['fns/ab/handler.ts']),
  },
};

it.each([
  [
    'a: its own files, what it takes from b, every shared file (used or not)',
    a,
    ['fns/a/handler.ts', 'fns/b/config.ts', 'shared/x.ts', 'shared/unused.ts'],
  ],
  ['b: none of a or ab', b, ['fns/b/handler.ts', 'fns/b/config.ts', 'shared/x.ts', 'shared/unused.ts']],
  [
    'ab: a folder whose name starts like another is not that folder',
    ab,
    ['fns/ab/handler.ts', 'shared/x.ts', 'shared/unused.ts'],
  ],
])('%s', (_name, target, want) => {
  expect(inputsOf(target, [a, b, ab], metafile).sort()).toEqual(want.map((p) => resolve(p)).sort());
});
