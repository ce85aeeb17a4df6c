/**
 * Test support: a private `redis-server` on a free loopback port (the same code `npm start` uses).
 *
 *   let redis: TestRedis;
 *   beforeAll(async () => { redis = await startRedis(); });
 *   afterAll(async () => { await redis.stop(); });
 */
export { freePort, ping, startRedis } from '../../local/redis.js';
export type { StartRedisOptions, TestRedis } from '../../local/redis.js';
