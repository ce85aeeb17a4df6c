/**
 * Function logs: every line a replica prints goes to the landscape's stdout prefixed with the
 * function and pod, and to `<logDir>/<function>.log` as a JSON line (a JSON line as printed, with
 * `pod` added; any other text wrapped as `{ts, level, logger, msg, pod, stream}`).
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { LogStream } from './replica.js';

/**
 * The JSON line stored for one printed line (pure). A JSON object line (what a replica's logger
 * prints) keeps its text, `pod` put first: spliced in after `{` once JSON.parse has said the line is
 * one non-empty object without a `pod` of its own (no stringify per line: the landscape stores
 * every line its replicas print); such an object with a `pod` is rebuilt, its own `pod` winning.
 */
export function jsonLogLine(fn: string, pod: string, stream: LogStream, line: string, now: Date): string {
  if (line.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // not JSON after all: wrapped below
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const fields = parsed as Record<string, unknown>;
      if (Object.hasOwn(fields, 'pod')) return JSON.stringify({ pod, ...fields });
      // JSON whitespace around the keys may be \r or \t: what a line-based reader must not split on at the end
      const rest = line.slice(1).trim();
      // the first key of a non-empty object starts here; `{}` gets no comma
      return rest.startsWith('"') ? `{"pod":${JSON.stringify(pod)},${rest}` : JSON.stringify({ pod });
    }
  }
  return JSON.stringify({
    ts: now.toISOString(),
    level: stream === 'stderr' ? 'error' : 'info',
    logger: fn,
    msg: line,
    pod,
    stream,
  });
}

/**
 * How long a line waits for others before the lines go to their file together: a write per turn of
 * the event loop had been ~4 % of the landscape process's CPU in the deployers bench (2026-11-28;
 * ~300 lines/s from two replicas). The console echo is not delayed; `close` writes what waits.
 */
export const FLUSH_DELAY_MS = 100;

export interface FunctionLogsOptions {
  dir: string;
  /** Echo to this writer (default process.stdout); null: files only. */
  echo?: { write(text: string): unknown } | null;
  now?: () => Date;
}

export class FunctionLogs {
  private readonly files = new Map<string, WriteStream>();
  /** Lines not yet handed to their file: written together FLUSH_DELAY_MS after the first of them. */
  private readonly pending = new Map<string, string[]>();
  private flushing: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: FunctionLogsOptions) {
    mkdirSync(o.dir, { recursive: true });
  }

  fileOf(fn: string): string {
    return join(this.o.dir, `${fn}.log`);
  }

  line(fn: string, pod: string, stream: LogStream, line: string): void {
    if (line.trim() === '') return;
    if (!this.closed) {
      const now = this.o.now?.() ?? new Date();
      const lines = this.pending.get(fn);
      const json = `${jsonLogLine(fn, pod, stream, line, now)}\n`;
      if (lines) lines.push(json);
      else this.pending.set(fn, [json]);
      this.flushing ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
    }
    const echo = this.o.echo === undefined ? process.stdout : this.o.echo;
    echo?.write(`[${fn} ${pod.slice(-5)}] ${line}\n`);
  }

  /** One write per function file of what the lines since the last flush stored. */
  private flush(): void {
    clearTimeout(this.flushing);
    this.flushing = undefined;
    for (const [fn, lines] of this.pending) this.fileFor(fn)?.write(lines.join(''));
    this.pending.clear();
  }

  /**
   * The function's log file; none once closed (a replica stopped with the landscape may still
   * print its last lines: they are echoed, not written to a file being closed). A file that cannot
   * be written (disk full, removed folder) is reported once and dropped, never a crash.
   */
  private fileFor(fn: string): WriteStream | undefined {
    if (this.closed) return undefined;
    let file = this.files.get(fn);
    if (!file) {
      file = createWriteStream(this.fileOf(fn), { flags: 'a' });
      file.on('error', (err) => {
        this.files.delete(fn);
        process.stderr.write(`function log ${this.fileOf(fn)}: ${err.message}\n`);
      });
      this.files.set(fn, file);
    }
    return file;
  }

  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    const files = [...this.files.values()];
    this.files.clear();
    await Promise.all(
      files.map(
        (f) =>
          new Promise<void>((resolve) => {
            f.once('close', () => resolve());
            f.end();
          }),
      ),
    );
  }
}
