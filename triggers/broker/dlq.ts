/**
 * Dead letters the broker keeps: the original event, the Knative error extensions it was
 * dead-lettered with, and when and why. In memory, or as JSON lines (`.local/dlq/<broker>.jsonl`).
 * The file is replaced atomically on every change (shared/files/atomic.ts), so `npm run dlq`
 * or a test reading it while the broker adds a letter never sees half a line.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/files/atomic.js';
import type { KnativeErrorExtension } from '../../shared/events/index.js';

export const DEAD_LETTER_REASONS = [
  'non-retryable',
  'retries-exhausted',
  'unresolved-subscriber',
  /** The subscriber's reply was refused by the broker (its TTL used up): the event it answered is the letter. */
  'reply-refused',
] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

export interface DeadLetter {
  id: string;
  /** ISO time it was dead-lettered. */
  time: string;
  /** `<namespace>/<name>` of the broker and the trigger. */
  broker: string;
  trigger: string;
  subscriber: string;
  reason: DeadLetterReason;
  attempts: number;
  /** The original event (structured JSON form, without the error extensions). */
  event: Record<string, unknown>;
  extensions: Record<KnativeErrorExtension, string | number>;
}

export interface DeadLetterStore {
  add(letter: DeadLetter): Promise<void>;
  list(): Promise<DeadLetter[]>;
  get(id: string): Promise<DeadLetter | undefined>;
  /** Removes it; false when there was none. */
  remove(id: string): Promise<boolean>;
}

export class MemoryDeadLetterStore implements DeadLetterStore {
  private readonly letters: DeadLetter[] = [];
  add(letter: DeadLetter): Promise<void> {
    this.letters.push(structuredClone(letter));
    return Promise.resolve();
  }
  list(): Promise<DeadLetter[]> {
    return Promise.resolve(this.letters.map((l) => structuredClone(l)));
  }
  get(id: string): Promise<DeadLetter | undefined> {
    const found = this.letters.find((l) => l.id === id);
    return Promise.resolve(found ? structuredClone(found) : undefined);
  }
  remove(id: string): Promise<boolean> {
    const i = this.letters.findIndex((l) => l.id === id);
    if (i >= 0) this.letters.splice(i, 1);
    return Promise.resolve(i >= 0);
  }
}

function parseLines(text: string): DeadLetter[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DeadLetter);
}

/** One JSON line per dead letter; writes are serialized within the process. */
export class JsonlDeadLetterStore implements DeadLetterStore {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(readonly file: string) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<DeadLetter[]> {
    try {
      return parseLines(await readFile(this.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  private write(letters: DeadLetter[]): Promise<void> {
    return writeFileAtomic(this.file, letters.map((l) => `${JSON.stringify(l)}\n`).join(''));
  }

  add(letter: DeadLetter): Promise<void> {
    return this.serial(async () => this.write([...(await this.read()), letter]));
  }
  list(): Promise<DeadLetter[]> {
    return this.serial(() => this.read());
  }
  async get(id: string): Promise<DeadLetter | undefined> {
    return (await this.list()).find((l) => l.id === id);
  }
  remove(id: string): Promise<boolean> {
    return this.serial(async () => {
      const letters = await this.read();
      const kept = letters.filter((l) => l.id !== id);
      if (kept.length === letters.length) return false;
      await this.write(kept);
      return true;
    });
  }
}

/** The file of a broker's dead letters under `dir` (`<namespace>.<name>.jsonl`, or `<name>.jsonl` in default). */
export function deadLetterFile(dir: string, broker: { namespace: string; name: string }): string {
  const base = broker.namespace === 'default' ? broker.name : `${broker.namespace}.${broker.name}`;
  return join(dir, `${base}.jsonl`);
}

/** One store per `*.jsonl` file in `dir` (none when the folder does not exist). */
export async function storesIn(dir: string): Promise<JsonlDeadLetterStore[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => new JsonlDeadLetterStore(join(dir, n)));
}
