import { asciiText, cacheKey, decodeCache, encodeCache, shouldWrite, type CacheUse } from './code-cache.js';

const node20 = { version: 'v20.20.2', arch: 'x64' };
const bundle = { size: 854_284, mtimeMs: 1_764_186_000_123.5 };

describe('cacheKey', () => {
  it.each([
    ['another size', { ...bundle, size: bundle.size + 1 }, node20],
    ['another mtime', { ...bundle, mtimeMs: bundle.mtimeMs + 1 }, node20],
    ['another node', bundle, { ...node20, version: 'v24.11.1' }],
    ['another architecture', bundle, { ...node20, arch: 'arm64' }],
  ])('differs for %s', (_what, st, runtime) => {
    expect(cacheKey(st, runtime)).not.toBe(cacheKey(bundle, node20));
  });

  it('is the same for the same bundle on the same node', () => {
    expect(cacheKey({ ...bundle }, { ...node20 })).toBe(cacheKey(bundle, node20));
  });
});

describe('encodeCache / decodeCache', () => {
  const key = cacheKey(bundle, node20);
  const data = Buffer.from([0, 1, 2, 10, 255, 13]);

  it("gives back V8's data for the key it was written for", () => {
    expect(decodeCache(encodeCache(key, data), key)).toEqual(data);
  });

  it.each([
    ['another bundle', encodeCache(cacheKey({ ...bundle, size: 1 }, node20), data)],
    ['a file without the header', data],
    ['an empty file', Buffer.alloc(0)],
    ['a header without data', Buffer.from(`${key}\n`, 'latin1')],
    ['a truncated header', Buffer.from(key.slice(0, 10), 'latin1')],
  ])('gives nothing for %s', (_what, file) => {
    expect(decodeCache(file, key)).toBeUndefined();
  });
});

describe('shouldWrite', () => {
  it.each<[CacheUse, boolean]>([
    ['accepted', false],
    ['rejected', true],
    ['none', true],
  ])('%s → %s', (use, write) => {
    expect(shouldWrite(use)).toBe(write);
  });
});

describe('asciiText', () => {
  it.each([
    ['ASCII', Buffer.from('"use strict";var a=1;\n', 'latin1'), '"use strict";var a=1;\n'],
    ['empty', Buffer.alloc(0), ''],
  ])('decodes %s bytes as the same string UTF-8 gives', (_what, bytes, text) => {
    expect(asciiText(bytes)).toBe(text);
    expect(asciiText(bytes)).toBe(bytes.toString('utf8'));
  });

  it.each([
    ['a BOM', Buffer.from('\uFEFFvar a=1;', 'utf8')],
    ['UTF-8 text', Buffer.from('var s="größe";', 'utf8')],
    ['a Latin-1 byte', Buffer.from([0x76, 0x61, 0x72, 0xe9])],
  ])('leaves %s to Node (undefined)', (_what, bytes) => {
    expect(asciiText(bytes)).toBeUndefined();
  });
});
