/**
 * JSONPath as client-go has it (k8s.io/client-go/util/jsonpath/{parser,jsonpath}.go), the part that
 * printer columns use, with its semantics: `.field` (`\.` escapes a dot), `..field`, `.*`, `[n]`, `[-n]`, `[a:b:c]`, `[*]`,
 * `['key']`, and filters `[?(@.a.b == "x")]` (==, !=, <, >, <=, >=, or existence), with missing keys
 * allowed (`AllowMissingKeys(true)`, as the CRD table convertor sets it). Errors are thrown where
 * client-go returns one (a non-list indexed or filtered, an index out of range, incomparable types).
 */

const INT64_LIMIT = 2 ** 63;

/** A JSON number Go decodes as an int64 (whole, in range); others are float64. */
export function isInt64(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < INT64_LIMIT;
}

type Slice = [number | undefined, number | undefined, number | undefined];

export type PathNode =
  | { t: 'field'; name: string }
  | { t: 'array'; params: Slice; derivedEnd: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'filter'; left: PathNode[]; op: string; right: PathNode[] }
  | { t: 'literal'; value: unknown };

/** A float literal of a filter (`1.0` is a float in Go even though it is integral). */
class GoFloat {
  constructor(readonly value: number) {}
}

const TERMINATORS = new Set([' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;
const NUMBER = /^[+-]?[\d.]+/;

class Parser {
  private pos = 0;
  readonly nodes: PathNode[] = [];

  constructor(private readonly input: string) {}

  parse(): PathNode[] {
    while (this.pos < this.input.length) this.step();
    return this.nodes;
  }

  private rest(): string {
    return this.input.slice(this.pos);
  }

  private step(): void {
    const rest = this.rest();
    if (rest.startsWith('..')) return this.recursive();
    if (rest.startsWith('[?(')) return this.filter();
    this.handlerFor(rest[0])();
  }

  private handlerFor(c: string): () => void {
    if (' @$'.includes(c)) return () => void this.pos++;
    const handlers: Record<string, () => void> = {
      '.': () => this.field(),
      '[': () => this.array(),
      '"': () => this.quote('"'),
      "'": () => this.quote("'"),
    };
    if (handlers[c]) return handlers[c];
    return /[+\-\d]/.test(c) ? () => this.number() : () => this.identifier();
  }

  private recursive(): void {
    if (this.nodes.at(-1)?.t === 'recursive') throw new Error('invalid multiple recursive descent');
    this.pos += 2;
    this.nodes.push({ t: 'recursive' });
    if (/[\w]/.test(this.input[this.pos] ?? '')) this.fieldText();
  }

  private field(): void {
    this.pos++;
    this.fieldText();
  }

  private fieldText(): void {
    const start = this.pos;
    while (this.pos < this.input.length && !TERMINATORS.has(this.input[this.pos])) {
      this.pos += this.input[this.pos] === '\\' ? 2 : 1;
    }
    const text = this.input.slice(start, this.pos);
    this.nodes.push(text === '*' ? { t: 'wildcard' } : { t: 'field', name: text.replace(/\\/g, '') });
  }

  private array(): void {
    const end = this.input.indexOf(']', this.pos);
    if (end < 0) throw new Error('unterminated array');
    let text = this.input.slice(this.pos + 1, end);
    this.pos = end + 1;
    if (text === '*') text = ':';
    if (text.includes(',')) throw new Error('unions are not supported');
    const key = /^'([^']*)'$/.exec(text);
    if (key) {
      this.nodes.push(...new Parser(`.${key[1]}`).parse());
      return;
    }
    this.nodes.push(sliceNode(text));
  }

  private filter(): void {
    const start = this.pos + 3;
    const close = filterEnd(this.input, start);
    const text = this.input.slice(start, close);
    this.pos = close + 2;
    const m = FILTER.exec(text);
    const left = new Parser(m ? m[1] : text).parse();
    const right = m ? new Parser(m[3]).parse() : [];
    this.nodes.push({ t: 'filter', left, op: m ? m[2] : 'exists', right });
  }

  private quote(q: string): void {
    let i = this.pos + 1;
    while (i < this.input.length && (this.input[i] !== q || this.input[i - 1] === '\\')) i++;
    if (i >= this.input.length) throw new Error('unterminated quoted string');
    const body = this.input.slice(this.pos + 1, i);
    this.pos = i + 1;
    this.nodes.push({ t: 'literal', value: unquote(body, q) });
  }

  private number(): void {
    const text = NUMBER.exec(this.rest())?.[0] ?? '';
    this.pos += Math.max(text.length, 1);
    if (/^[+-]?\d+$/.test(text)) this.nodes.push({ t: 'literal', value: Number(text) });
    else if (text !== '' && Number.isFinite(Number(text)))
      this.nodes.push({ t: 'literal', value: new GoFloat(Number(text)) });
    else throw new Error(`cannot parse number ${text}`);
  }

  private identifier(): void {
    const word = /^\w+/.exec(this.rest())?.[0];
    if (word !== 'true' && word !== 'false')
      throw new Error(`unrecognized identifier or character at ${this.pos}`);
    this.pos += word.length;
    this.nodes.push({ t: 'literal', value: word === 'true' });
  }
}

function unquote(body: string, q: string): string {
  if (q === "'") return body.replace(/\\'/g, "'");
  return JSON.parse(`"${body}"`) as string;
}

/** Index of the `)` closing a filter (quotes inside may hold parentheses); `)]` must follow. */
function filterEnd(input: string, start: number): number {
  let quote: string | undefined;
  for (let i = start; i < input.length; i++) {
    const c = input[i];
    if (quote) {
      if (c === quote && input[i - 1] !== '\\') quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ')') {
      if (input[i + 1] !== ']') throw new Error('unclosed array expect ]');
      return i;
    }
  }
  throw new Error('unterminated filter');
}

function sliceNode(text: string): PathNode {
  const m = SLICE.exec(text);
  if (!m) throw new Error(`invalid array index ${text}`);
  const num = (s: string | undefined): number | undefined =>
    s === undefined || s === '' ? undefined : Number(s);
  const start = num(m[1]);
  const derivedEnd = m[2] === undefined;
  const end = derivedEnd ? (start ?? 0) + 1 : num(m[2].slice(1));
  return { t: 'array', params: [start, end, num(m[3]?.slice(1))], derivedEnd };
}

/** Parses the inside of `{...}` (a printer column's jsonPath). Throws when it does not parse. */
export function parseJSONPath(path: string): PathNode[] {
  return new Parser(path).parse();
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoFloat);
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isMap(v))
    return Object.keys(v)
      .sort()
      .map((k) => v[k]);
  if (typeof v === 'string') return [...Buffer.from(v)];
  return [];
}

function evalField(input: unknown[], name: string): unknown[] {
  if (name === '') return input.filter((v) => v !== null);
  return input
    .filter((v) => isMap(v) && Object.hasOwn(v, name))
    .map((v) => (v as Record<string, unknown>)[name]);
}

/** The [start, end) client-go takes from a list for `[a:b]`, or undefined for zero elements. */
function bounds(node: Extract<PathNode, { t: 'array' }>, length: number): [number, number] | undefined {
  const [a, b] = node.params;
  const start = a === undefined ? 0 : a < 0 ? a + length : a;
  let end = b ?? length;
  if (end < 0 || (end === 0 && node.derivedEnd)) end += length;
  if (end === start) return undefined;
  checkBounds(start, end, length);
  return [start, end];
}

function checkBounds(start: number, end: number, length: number): void {
  const outside = (i: number, max: number): boolean => i < 0 || i > max;
  if (outside(start, length - 1) || outside(end, length)) throw new Error('array index out of bounds');
  if (start > end) throw new Error(`starting index ${start} is greater than ending index ${end}`);
}

function evalArray(input: unknown[], node: Extract<PathNode, { t: 'array' }>): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (v === null) continue;
    if (!Array.isArray(v)) throw new Error('not array or slice');
    const range = bounds(node, v.length);
    if (!range) return out;
    const step = node.params[2] ?? 1;
    if (step <= 0) throw new Error('step must be > 0');
    for (let i = range[0]; i < range[1]; i += step) out.push(v[i]);
  }
  return out;
}

function evalRecursive(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (v === null) continue;
    const kids = children(v);
    if (kids.length === 0) continue;
    out.push(v, ...evalRecursive(kids));
  }
  return out;
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'invalid';

function kindOf(v: unknown): Kind {
  if (v instanceof GoFloat) return 'float';
  if (typeof v === 'number') return isInt64(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'invalid';
}

function plain(v: unknown): unknown {
  return v instanceof GoFloat ? v.value : v;
}

/** text/template's eq/ne/lt/le/gt/ge as the forked copy in client-go applies them. */
function compare(left: unknown, op: string, right: unknown): boolean {
  const [kl, kr] = [kindOf(left), kindOf(right)];
  if (kl === 'invalid' || kr === 'invalid') throw new Error('invalid type for comparison');
  if (kl !== kr) throw new Error('incompatible types for comparison');
  const [l, r] = [plain(left), plain(right)] as [number | string | boolean, number | string | boolean];
  if (op === '==') return l === r;
  if (op === '!=') return l !== r;
  if (kl === 'bool') throw new Error('invalid type for comparison');
  const ORDER: Record<string, (a: typeof l, b: typeof r) => boolean> = {
    '<': (a, b) => a < b,
    '>': (a, b) => a > b,
    '<=': (a, b) => a <= b,
    '>=': (a, b) => a >= b,
  };
  const fn = ORDER[op];
  if (!fn) throw new Error(`unrecognized filter operator ${op}`);
  return fn(l, r);
}

function one(values: unknown[]): unknown {
  if (values.length > 1) throw new Error('can only compare one element at a time');
  return values[0];
}

function filterMatches(item: unknown, node: Extract<PathNode, { t: 'filter' }>): boolean {
  if (node.op === 'exists') {
    try {
      return walk([item], node.left).length > 0;
    } catch {
      return false;
    }
  }
  const lefts = walk([item], node.left);
  if (lefts.length === 0) return false;
  const left = one(lefts);
  const rights = walk([item], node.right);
  if (rights.length === 0) return false;
  return compare(left, node.op, one(rights));
}

function evalFilter(input: unknown[], node: Extract<PathNode, { t: 'filter' }>): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (!Array.isArray(v)) throw new Error('not array or slice and cannot be filtered');
    for (const item of v) if (filterMatches(item, node)) out.push(item);
  }
  return out;
}

function step(input: unknown[], node: PathNode): unknown[] {
  switch (node.t) {
    case 'field':
      return evalField(input, node.name);
    case 'array':
      return evalArray(input, node);
    case 'wildcard':
      return input.filter((v) => v !== null).flatMap(children);
    case 'recursive':
      return evalRecursive(input);
    case 'filter':
      return evalFilter(input, node);
    case 'literal':
      return typeof node.value === 'string' ? [node.value] : input.map(() => node.value);
  }
}

function walk(input: unknown[], nodes: PathNode[]): unknown[] {
  return nodes.reduce(step, input);
}

/**
 * `FindResults(data)[0]`: every value the path selects (a JSON null included), in order.
 * Throws where client-go fails.
 */
export function findResults(nodes: PathNode[], data: unknown): unknown[] {
  return walk([data], nodes).map(plain);
}
