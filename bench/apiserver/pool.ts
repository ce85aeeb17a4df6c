/** Runs `count` tasks with at most `concurrency` in flight, counting (not throwing) failures. */
export interface PoolResult {
  ms: number;
  errors: number;
  firstError?: unknown;
}

export async function runPool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<PoolResult> {
  let next = 0;
  const result: PoolResult = { ms: 0, errors: 0 };
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      try {
        await task(i);
      } catch (e) {
        result.errors++;
        result.firstError ??= e;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  result.ms = performance.now() - start;
  return result;
}
