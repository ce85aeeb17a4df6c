/**
 * Small source patches of packages in the CommonJS server bundles of local/bundle.ts (issue 16,
 * cold start), each keeping the package's behaviour and changing only how V8 holds what it builds.
 *
 * ioredis (6.x) `built/utils/Commander.js` adds two methods per Redis command (~300 commands, and
 * a `…Buffer` twin each) to `Commander.prototype` one by one at load. V8 keeps a prototype in fast
 * mode while properties are added, so each addition copies the prototype's map and descriptors:
 * ≈ 5 MB of garbage and 5 scavenges, 7–8 ms of every replica's first Redis use on a 2-core machine
 * (a standalone loop over the same command list: 0.45 MB and 1 ms with the prototype in dictionary
 * mode first). The patch adds and deletes one property on the prototype before the loop, which is
 * V8's own way to turn an object into dictionary mode; the prototype ends with the same properties
 * (V8 makes it fast again when it is first used as a prototype). A patch whose anchor text is not
 * in the file (another version of the package) leaves the file as it is;
 * test/integration/bundle/patches.test.ts fails then, so the patch is looked at again.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

export interface SourcePatch {
  /** The module patched, as a package path (`<package>/<file>`). */
  module: string;
  /** The file patched (its absolute path). */
  file: RegExp;
  /** The text the patch goes in front of; it must occur exactly once. */
  before: string;
  /** What is inserted. */
  insert: string;
}

const DICTIONARY_MODE_KEY = '__landscapeDictionaryMode';

export const SOURCE_PATCHES: readonly SourcePatch[] = [
  {
    module: 'ioredis/built/utils/Commander.js',
    file: /\/node_modules\/ioredis\/built\/utils\/Commander\.js$/,
    before: 'commands.forEach(function (commandName) {',
    insert: [
      '// landscape bundle patch (local/bundle-patches.ts): dictionary mode before ~600 methods are added',
      `Commander.prototype.${DICTIONARY_MODE_KEY} = 0;`,
      `delete Commander.prototype.${DICTIONARY_MODE_KEY};`,
      '',
    ].join('\n'),
  },
];

/** The source with `patch` applied, or undefined when its anchor is not there exactly once. */
export function applyPatch(source: string, patch: SourcePatch): string | undefined {
  const at = source.indexOf(patch.before);
  if (at < 0 || source.indexOf(patch.before, at + 1) >= 0) return undefined;
  return `${source.slice(0, at)}${patch.insert}${source.slice(at)}`;
}

/** The esbuild plugin: each file of SOURCE_PATCHES loads patched. */
export function sourcePatches(patches: readonly SourcePatch[] = SOURCE_PATCHES): Plugin {
  return {
    name: 'source-patches',
    setup(b) {
      for (const patch of patches)
        b.onLoad({ filter: patch.file }, async (args) => {
          const patched = applyPatch(await readFile(args.path, 'utf8'), patch);
          return patched === undefined ? undefined : { contents: patched, loader: 'js' };
        });
    },
  };
}
