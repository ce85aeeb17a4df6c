import { mergeDiff } from './patch.js';

/** RFC 7386 apply, to check that the diff turns before into after. */
function apply(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = apply(out[k], v);
  }
  return out;
}

describe('mergeDiff', () => {
  it.each([
    [{ a: 1, b: 2 }, { a: 1 }, { a: 1, b: null }],
    [{ t: { init: 'x', finished: 'y' } }, { t: { init: 'z' } }, { t: { init: 'z', finished: null } }],
    [{ l: [1, 2] }, { l: [3] }, { l: [3] }],
    [{ e: { m: 1 } }, { e: 'text' }, { e: 'text' }],
    [{}, { p: { q: [1] } }, { p: { q: [1] } }],
    [{ x: 1 }, {}, { x: null }],
  ])('%j → %j is %j and applies back', (before, after, want) => {
    const patch = mergeDiff(before, after);
    expect(patch).toEqual(want);
    expect(apply(before, patch)).toEqual(after);
  });
});
