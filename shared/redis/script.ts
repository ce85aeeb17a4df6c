/**
 * Lua scripts run by their SHA1 (`EVALSHA`), so that a script's text crosses the wire and is
 * hashed by the server once per server rather than on every call; a server that does not have it
 * (first use, a restart, `SCRIPT FLUSH`) answers `NOSCRIPT` and the call falls back to `EVAL`,
 * which loads it. As ioredis's own `defineCommand` scripts do, without a method per script.
 */
import { createHash } from 'node:crypto';
import type { Redis } from './client.js';

const shas = new Map<string, string>();

function shaOf(script: string): string {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  return sha;
}

const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOSCRIPT');

/** Runs `script` over `keys` with `args`: EVALSHA, then EVAL when the server lacks the script. */
export async function evalScript(
  redis: Redis,
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[] = [],
): Promise<unknown> {
  try {
    return await redis.evalsha(shaOf(script), keys.length, ...keys, ...args);
  } catch (err) {
    if (!isNoScript(err)) throw err;
    return redis.eval(script, keys.length, ...keys, ...args);
  }
}
