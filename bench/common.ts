/**
 * What the benchmarks share: option values and parsing (commander), the header and load-average
 * lines, the FAIL lines and exit code, redis-server stopped on a signal, and the Markdown tables'
 * number formatting.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CommanderError, InvalidArgumentError, type Command, type OptionValues } from 'commander';
import type { TestRedis } from '../local/redis.js';

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number ≥ 0');
  return n;
}

/** A comma-separated list of positive integers (fleet sizes): distinct, ascending. */
export function sizeList(v: string): number[] {
  const list = v.split(',').map((s) => positiveInt(s.trim()));
  return [...new Set(list)].sort((a, b) => a - b);
}

/**
 * The options `cmd` parses from `argv`; a number (the exit code) when commander printed the help
 * or a usage error instead.
 */
export function parseCommand<O extends OptionValues>(cmd: Command, argv: string[]): O | number {
  try {
    cmd.exitOverride().parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    throw e;
  }
  return cmd.opts<O>();
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
export const secondsSince = (t0: number): string => seconds(performance.now() - t0);

/** `node v20…, 8 CPUs (model)`. */
export function hostLine(): string {
  return `node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'})`;
}

/**
 * Reads the load average now; the returned function gives the line with it and the load average
 * then: the 1-minute figure, or all three.
 */
export function watchLoad(figures: '1' | '1/5/15'): () => string {
  const read = (): string =>
    figures === '1'
      ? loadavg()[0].toFixed(2)
      : loadavg()
          .map((l) => l.toFixed(2))
          .join(' ');
  const start = read();
  return () => `load average (${figures} min) at start ${start}, at end ${read()}`;
}

/** Prints `FAIL <problem>` for each; the exit code (1 when there is any). */
export function failures(problems: readonly string[]): number {
  for (const p of problems) console.error(`FAIL ${p}`);
  return problems.length > 0 ? 1 : 0;
}

export interface Benchmark<O, M> {
  name: string;
  /** The header with the date and the 1/5/15-minute load averages; else without, and the 1-minute one. */
  detailed: boolean;
  /** The options; a number (the exit code) when commander printed the help or a usage error. */
  parse(argv: string[]): O | number;
  measure(o: O): Promise<M>;
  /** Prints the report; the problems found (FAIL). */
  report(o: O, m: M): readonly string[];
}

/** A benchmark's run: options, header, the measurement timed, load average, report; its exit code. */
export async function runBenchmark<O, M>(argv: string[], b: Benchmark<O, M>): Promise<number> {
  const o = b.parse(argv);
  if (typeof o === 'number') return o;
  console.log(`# ${b.name} benchmark`);
  console.log(b.detailed ? `${new Date().toISOString()}, ${hostLine()}` : hostLine());
  const loadLine = watchLoad(b.detailed ? '1/5/15' : '1');
  const t0 = performance.now();
  const m = await b.measure(o);
  console.log(loadLine());
  console.log(`total ${secondsSince(t0)}\n`);
  return failures(b.report(o, m));
}

/** Stops redis-server on SIGINT/SIGTERM before exiting (it is no child of a process group we kill); returns the undo. */
export function redisOnSignal(redis: TestRedis): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    void redis.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function fmt(v: number, digits = 0): string {
  if (!Number.isFinite(v)) return '—';
  return v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '—';
  return `${(a / b).toFixed(2)}×`;
}

export function markdown(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
