import { formatFrame, formatStack, type EntryFinder, type Frame } from './stack-map.js';

/** A map of a few generated positions (0-based line:column) to original ones. */
function mapOf(entries: Record<string, ReturnType<EntryFinder['findEntry']>>): EntryFinder {
  return { findEntry: (line, column) => entries[`${line}:${column}`] ?? {} };
}

interface FrameValues {
  file: string;
  line: number | null;
  column: number;
  enclosingLine: number;
  enclosingColumn: number;
  fn: string | null;
  type: string | null;
  text: string;
}

function frame(over: Partial<FrameValues>): Frame {
  const f: FrameValues = {
    file: '/app/fn/server.cjs',
    line: 1,
    column: 10,
    enclosingLine: 1,
    enclosingColumn: 2,
    fn: 'h',
    type: null,
    text: 'h (/app/fn/server.cjs:1:10)',
    ...over,
  };
  return {
    getFileName: () => f.file,
    getLineNumber: () => f.line,
    getColumnNumber: () => f.column,
    getEnclosingLineNumber: () => f.enclosingLine,
    getEnclosingColumnNumber: () => f.enclosingColumn,
    getFunctionName: () => f.fn,
    getMethodName: () => null,
    getTypeName: () => f.type,
    toString: () => f.text,
  };
}

const map = mapOf({
  '0:9': { originalSource: '../functions/fn/handler.ts', originalLine: 4, originalColumn: 2 },
  '0:1': { name: 'handle' },
  '0:99': { originalSource: 'file:///src/shared/x.ts', originalLine: 0, originalColumn: 0, name: 'callee' },
});

describe('formatFrame', () => {
  const cases: [string, Frame[], number, string][] = [
    ['the enclosing function names it', [frame({})], 0, 'handle (/app/functions/fn/handler.ts:5:3)'],
    [
      'without an enclosing name: the caller site in the same file',
      [frame({ enclosingColumn: 50 }), frame({ column: 100 })],
      0,
      'callee (/app/functions/fn/handler.ts:5:3)',
    ],
    [
      'without either: the runtime name with its type',
      [frame({ enclosingColumn: 50, type: 'Server', fn: 'h' })],
      0,
      'Server.h (/app/functions/fn/handler.ts:5:3)',
    ],
    [
      'the global type is left out, an unnamed function is <anonymous>',
      [frame({ enclosingColumn: 50, type: 'global', fn: null })],
      0,
      '<anonymous> (/app/functions/fn/handler.ts:5:3)',
    ],
    ['a file: URL source becomes a path', [frame({ column: 100 })], 0, 'handle (/src/shared/x.ts:1:1)'],
    ['no entry: as V8 writes it', [frame({ column: 7, text: 'V8 text' })], 0, 'V8 text'],
    ['no position (native): as V8 writes it', [frame({ line: null, text: 'native' })], 0, 'native'],
  ];
  it.each(cases)('%s', (_name, frames, i, want) => {
    expect(formatFrame(map, '/app/fn', frames, i)).toBe(want);
  });
});

describe('formatStack', () => {
  it("maps the bundle's frames and leaves the others as V8 writes them", () => {
    const frames = [
      frame({}),
      frame({
        file: 'node:internal/process/task_queues',
        text: 'process.processTicksAndRejections (x:1:1)',
      }),
    ];
    const stack = formatStack(
      new TypeError('bad'),
      frames,
      (f) => (f === '/app/fn/server.cjs' ? map : undefined),
      '/app/fn',
    );
    expect(stack).toBe(
      'TypeError: bad\n    at handle (/app/functions/fn/handler.ts:5:3)\n    at process.processTicksAndRejections (x:1:1)',
    );
  });

  it('survives an error whose toString throws', () => {
    const bad = Object.create(Error.prototype, {
      name: {
        get() {
          throw new Error('no');
        },
      },
    }) as Error;
    expect(formatStack(bad, [], () => undefined, '/')).toBe('<error>');
  });
});
