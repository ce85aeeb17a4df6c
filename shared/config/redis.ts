/**
 * The `redisUrl` key of a function that keeps state in Redis (requeues, leases, counts): a URL
 * shared/redis connects to. Apart from shared/config/index.ts so that a function without Redis does
 * not load the Redis client with its config.
 */
import * as z from './zod.js';
import { CacheUsageError, safeRedisUrl } from '../redis/index.js';

export const redisUrlSchema = z.string().refine(
  (v) => {
    try {
      safeRedisUrl(v);
      return true;
    } catch (err) {
      if (err instanceof CacheUsageError) return false;
      throw err;
    }
  },
  { message: 'must be a redis:// or rediss:// URL' },
);
