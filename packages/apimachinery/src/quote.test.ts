import { goQuote, goQuoteList, goStringSlice, goStruct } from './quote.js';

describe('goQuote (strconv.Quote)', () => {
  const rows: [string, string, string][] = [
    ['plain', 'abc', '"abc"'],
    ['empty', '', '""'],
    ['double quote', 'a"b', '"a\\"b"'],
    ['backslash', 'a\\b', '"a\\\\b"'],
    ['newline and tab', 'a\nb\tc', '"a\\nb\\tc"'],
    ['bell', '\u0007', '"\\a"'],
    ['other control byte', '\u0001', '"\\x01"'],
    ['DEL', '\u007f', '"\\x7f"'],
    ['printable unicode stays', 'héllo ☃', '"héllo ☃"'],
    ['non-printable BMP', '\u200b', '"\\u200b"'],
    ['non-printable astral', '\u{e0001}', '"\\U000e0001"'],
  ];
  it.each(rows)('%s', (_name, input, want) => {
    expect(goQuote(input)).toBe(want);
  });
});

describe('Go %q / %#v of slices and structs', () => {
  it('prints a []string with %q', () => {
    expect(goQuoteList(['a', 'b'])).toBe('["a" "b"]');
    expect(goQuoteList([])).toBe('[]');
  });
  it('prints a []string with %#v, nil apart from empty', () => {
    expect(goStringSlice(['a', 'b'])).toBe('[]string{"a", "b"}');
    expect(goStringSlice([])).toBe('[]string{}');
    expect(goStringSlice(undefined)).toBe('[]string(nil)');
  });
  it('prints a struct of strings with %#v', () => {
    expect(
      goStruct('rbac.RoleRef', [
        ['APIGroup', 'g'],
        ['Kind', 'Role'],
      ]),
    ).toBe('rbac.RoleRef{APIGroup:"g", Kind:"Role"}');
  });
});
