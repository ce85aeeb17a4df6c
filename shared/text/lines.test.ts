import { PassThrough } from 'node:stream';
import { lineSplitter } from './lines.js';

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

  it('a UTF-8 character split between two chunks of a stream arrives whole (setEncoding, as its readers do)', async () => {
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

  it('without a cap, a long line stays one line however many chunks it comes in (a 1 MB object on a watch)', () => {
    const big = `{"data":"${'x'.repeat(200_000)}"}`;
    const chunks: string[] = [];
    for (let i = 0; i < big.length; i += 16_384) chunks.push(big.slice(i, i + 16_384));
    expect(split([...chunks, '\n{"b":1}\n'])).toEqual([big, '{"b":1}']);
  });
});
