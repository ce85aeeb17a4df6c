/**
 * shared/redis/script.ts evalScript against a private redis-server: a server without the script
 * answers NOSCRIPT and the call loads it with EVAL; later calls run it by its SHA1 (EVALSHA), and
 * after SCRIPT FLUSH it is loaded again. A script's own error is the caller's, not a fallback.
 */
import { Redis } from 'ioredis';
import { evalScript } from '../../../shared/redis/script.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

let redis: TestRedis;
let rc: Redis;

/** Calls of EVAL and EVALSHA the server counted (`evalsha` includes the failed ones, `failed`: NOSCRIPT). */
async function calls(): Promise<{ eval: number; evalsha: number; failed: number }> {
  const info = await rc.info('commandstats');
  const of = (cmd: string, field: string): number =>
    Number(new RegExp(`cmdstat_${cmd}:.*?${field}=(\\d+)`).exec(info)?.[1] ?? 0);
  return {
    eval: of('eval', 'calls'),
    evalsha: of('evalsha', 'calls'),
    failed: of('evalsha', 'failed_calls'),
  };
}

const SCRIPT = `return redis.call('INCRBY', KEYS[1], ARGV[1])`;

beforeAll(async () => {
  redis = await startRedis();
  rc = new Redis(redis.url);
});

afterAll(async () => {
  rc?.disconnect();
  await redis?.stop();
});

it('loads a script the server lacks with EVAL, then runs it by SHA1; again after SCRIPT FLUSH', async () => {
  await rc.config('RESETSTAT');
  expect(await evalScript(rc, SCRIPT, ['n'], [2])).toBe(2);
  expect(await calls()).toEqual({ eval: 1, evalsha: 1, failed: 1 });
  expect(await evalScript(rc, SCRIPT, ['n'], [3])).toBe(5);
  expect(await evalScript(rc, SCRIPT, ['n'], [4])).toBe(9);
  expect(await calls()).toEqual({ eval: 1, evalsha: 3, failed: 1 });
  await rc.script('FLUSH');
  expect(await evalScript(rc, SCRIPT, ['n'], [1])).toBe(10);
  expect(await calls()).toEqual({ eval: 2, evalsha: 4, failed: 2 });
});

it("a script's own error reaches the caller, without a second run", async () => {
  await rc.config('RESETSTAT');
  const failing = `redis.call('INCR', KEYS[1]); return redis.error_reply('no such thing')`;
  await expect(evalScript(rc, failing, ['m'])).rejects.toThrow('no such thing');
  await expect(evalScript(rc, failing, ['m'])).rejects.toThrow('no such thing');
  expect(await rc.get('m')).toBe('2');
});
