/**
 * The mime-types stand-in of the server bundles (local/bundle-mime.ts) answers as the real
 * package does, for the inputs of its table and for every other type and extension, and requires
 * the real package only for an input its table does not hold.
 */
import { createRequire } from 'node:module';
import { runInThisContext } from 'node:vm';
import { CONTENT_TYPE_INPUTS, contentTypeTable, mimeStandIn } from '../../../local/bundle-mime.js';

interface Mime {
  contentType(t: unknown): string | false;
  lookup(t: string): string | false;
  charset(t: string): string | false;
  extension(t: string): string | false;
  types: Record<string, string>;
}

const real = createRequire(import.meta.url)('mime-types') as Mime;

function standIn(): { mime: Mime; required: () => number } {
  let required = 0;
  const exports = {} as Mime;
  const require = (): Mime => {
    required++;
    return real;
  };
  const run = runInThisContext(
    `(function (exports, require) {\n${mimeStandIn('mime-types', Object.keys(real), contentTypeTable(real))}\n})`,
  ) as (e: Mime, r: () => Mime) => void;
  run(exports, require);
  return { mime: exports, required: () => required };
}

it('answers the table without the real package', () => {
  const s = standIn();
  for (const t of CONTENT_TYPE_INPUTS) expect(s.mime.contentType(t)).toBe(real.contentType(t));
  expect(s.required()).toBe(0);
});

it('answers every other input as the real package, loading it once', () => {
  const s = standIn();
  const inputs = [
    ...Object.keys(real.types),
    ...Object.values(real.types),
    'text/plain',
    'application/cloudevents+json',
    'nope',
    '',
  ];
  for (const t of inputs) {
    expect(s.mime.contentType(t)).toBe(real.contentType(t));
    expect(s.mime.lookup(t)).toBe(real.lookup(t));
    expect(s.mime.charset(t)).toBe(real.charset(t));
    expect(s.mime.extension(t)).toBe(real.extension(t));
  }
  expect(s.mime.contentType(42)).toBe(real.contentType(42));
  expect(s.mime.types).toBe(real.types);
  expect(s.required()).toBe(1);
});
