/**
 * Memory of the scheduler bench's data: the heap each part adds (process.memoryUsage().heapUsed
 * after two full GCs, before and after building it), the JSON size of the lists, and what the
 * function's usage store holds in redis-server (MEMORY USAGE of its two hashes).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Redis } from 'ioredis';
import { COUNTS_KEY, RECORDS_KEY } from '../../functions/schedule-shoot/usage.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after full GCs. */
export function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** `build()` and the heap it added (what stays reachable from its result). */
export function measured<T>(build: () => T): { value: T; bytes: number } {
  const before = heapAfterGc();
  const value = build();
  return { value, bytes: heapAfterGc() - before };
}

/** Bytes of JSON of the items, one at a time (no string of the whole list). */
export function jsonBytes(items: readonly unknown[]): number {
  let bytes = 0;
  for (const item of items) bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
  return bytes;
}

/** Median milliseconds of `repeats` JSON.parse of the text. */
export function parseMs(text: string, repeats: number): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    JSON.parse(text);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export interface RedisMemory {
  countsBytes: number;
  recordsBytes: number;
  countsFields: number;
  recordsFields: number;
}

async function memoryUsage(redis: Redis, key: string): Promise<number> {
  return Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
}

export async function redisMemory(redis: Redis): Promise<RedisMemory> {
  return {
    countsBytes: await memoryUsage(redis, COUNTS_KEY),
    recordsBytes: await memoryUsage(redis, RECORDS_KEY),
    countsFields: await redis.hlen(COUNTS_KEY),
    recordsFields: await redis.hlen(RECORDS_KEY),
  };
}
