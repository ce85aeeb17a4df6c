import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { lineSplitter, ORPHAN_GUARD, preloadArgs } from './replica.js';

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

describe('lineSplitter', () => {
  const split = (chunks: string[], end = true): string[] => {
    const lines: string[] = [];
    const s = lineSplitter((l) => lines.push(l));
    chunks.forEach((c) => s.push(c));
    if (end) s.end();
    return lines;
  };

  it.each<[string, string[], string[]]>([
    ['one chunk, several lines', ['a\nb\n'], ['a', 'b']],
    ['a line across chunks', ['{"msg":', '"x"}\n'], ['{"msg":"x"}']],
    ['a line across three chunks, then more in the last', ['a', 'b', 'c\nd\n'], ['abc', 'd']],
    ['CRLF endings', ['a\r\nb\r', '\n'], ['a', 'b']],
    ['empty lines kept (the sink drops them)', ['\n\na\n'], ['', '', 'a']],
    ['the rest at the end is a line', ['a\nb'], ['a', 'b']],
    ['nothing left at the end: no extra line', ['a\n'], ['a']],
    ['a chunk of only a newline ends the pending line', ['abc', '\n', 'd\n'], ['abc', 'd']],
  ])('%s', (_what, chunks, lines) => {
    expect(split(chunks)).toEqual(lines);
  });

  it('holds a partial line until its end comes', () => {
    expect(split(['a\npart'], false)).toEqual(['a']);
  });

  it('lets text without a newline go in pieces of the longest line (a \\r progress bar)', () => {
    const lines: string[] = [];
    const s = lineSplitter((l) => lines.push(l), 4);
    s.push('12\r34\r5');
    expect(lines).toEqual(['12\r3']);
    s.push('6\r78\nx');
    s.end();
    expect(lines).toEqual(['12\r3', '4\r56\r78', 'x']);
  });

  it('a UTF-8 character split between two chunks of a stream arrives whole (setEncoding as Replica does)', async () => {
    const lines: string[] = [];
    const s = lineSplitter((l) => lines.push(l));
    const stream = new PassThrough();
    stream.setEncoding('utf8');
    stream.on('data', s.push);
    const done = new Promise((resolve) => stream.on('end', resolve));
    stream.on('end', s.end);
    const bytes = Buffer.from('{"msg":"café 🚀"}\nend');
    const cut = bytes.indexOf(0xa9); // the second byte of é
    stream.write(bytes.subarray(0, cut));
    stream.write(bytes.subarray(cut, cut + 3)); // into the rocket's four bytes
    stream.end(bytes.subarray(cut + 3));
    await done;
    expect(lines).toEqual(['{"msg":"café 🚀"}', 'end']);
  });
});
