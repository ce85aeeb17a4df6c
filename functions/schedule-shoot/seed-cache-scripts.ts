/**
 * The Lua scripts of the Seed cache in Redis (./seed-cache.ts). Every script takes the keys of
 * KEYS_ORDER (one hash tag, one Cluster slot):
 *
 * - KEYS[1] meta hash: `epoch` (a random id, new whenever the cache starts from empty), `gen`
 *   (bumped by every change), `listedAt` (ms: when the last full Seed list that was applied began);
 * - KEYS[2] objects hash: seed name → the Seed as JSON;
 * - KEYS[3] versions hash: seed name → its metadata.resourceVersion;
 * - KEYS[4] changes sorted set: seed name → the `gen` of its last change (a deletion too).
 *
 * A script that finds no epoch (Redis flushed or restarted, a key evicted) changes nothing and
 * answers `miss`: the caller starts the cache again from a full list.
 */

const PRELUDE = `
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then return {'miss'} end
local function changed(name)
  local gen = redis.call('HINCRBY', KEYS[1], 'gen', 1)
  redis.call('ZADD', KEYS[4], gen, name)
end
local function newer(rv, old)
  if not old then return true end
  local a, b = tonumber(rv), tonumber(old)
  if a and b then return a > b end
  return rv ~= old
end
`;

/**
 * Which of the listed seeds are newer than the cache's copy. ARGV: how many seeds the cache should
 * hold ('' for no check), then name, resourceVersion, … . Answers `short` when the cache holds
 * another number of seeds (the caller asks again about every listed seed), else `ok` and the
 * names whose copy is missing or older.
 */
export const STALE = `${PRELUDE}
if ARGV[1] ~= '' and redis.call('HLEN', KEYS[3]) ~= tonumber(ARGV[1]) then return {'short'} end
local out = {'ok'}
for i = 2, #ARGV, 2 do
  if newer(ARGV[i + 1], redis.call('HGET', KEYS[3], ARGV[i])) then table.insert(out, ARGV[i]) end
end
return out
`;

/**
 * Puts seeds into the cache, each only when newer than its copy (an older read, e.g. from a list
 * that began before an event's read, never overwrites a newer one). ARGV: name, resourceVersion,
 * JSON, … . Answers `ok` and the gen.
 */
export const PUT = `${PRELUDE}
for i = 1, #ARGV, 3 do
  local name, rv = ARGV[i], ARGV[i + 1]
  if newer(rv, redis.call('HGET', KEYS[3], name)) then
    redis.call('HSET', KEYS[2], name, ARGV[i + 2])
    redis.call('HSET', KEYS[3], name, rv)
    changed(name)
  end
end
return {'ok', redis.call('HGET', KEYS[1], 'gen')}
`;

/** The seed is gone (its GET answered NotFound). ARGV: name. */
export const DROP = `${PRELUDE}
if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[3], ARGV[1])
  changed(ARGV[1])
end
return {'ok'}
`;

/**
 * The end of a list. ARGV: the gen when the list began, when it began (ms), how many seeds it
 * showed, then every listed name, or none when each listed seed was in the cache already (then
 * `names` is the answer if the cache holds more seeds than listed: call again with the names).
 * Drops the seeds the list did not show unless changed since it began (an event's read is newer
 * than the list), and records the list's start as `listedAt` (never moving it back).
 */
export const PRUNE = `${PRELUDE}
local since, at, count = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local listed = {}
for i = 4, #ARGV do listed[ARGV[i]] = true end
-- no names: the caller saw every listed seed in the cache; as many cached as listed means the same set
local names = {}
if #ARGV > 3 or redis.call('HLEN', KEYS[3]) ~= count then names = redis.call('HKEYS', KEYS[3]) end
if #ARGV == 3 and #names > 0 then return {'names'} end
for _, name in ipairs(names) do
  local score = tonumber(redis.call('ZSCORE', KEYS[4], name) or '0')
  if not listed[name] and score <= since then
    redis.call('HDEL', KEYS[2], name)
    redis.call('HDEL', KEYS[3], name)
    changed(name)
  end
end
local last = tonumber(redis.call('HGET', KEYS[1], 'listedAt') or '-1')
if at > last then redis.call('HSET', KEYS[1], 'listedAt', at) end
return {'ok'}
`;

/**
 * Starts an empty cache when there is none. ARGV: a new epoch. Answers the epoch, the gen (the
 * start of a list) and listedAt ('' when no full list was ever applied).
 */
export const INIT = `
if not redis.call('HGET', KEYS[1], 'epoch') then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'gen', 0)
  redis.call('HDEL', KEYS[1], 'listedAt')
end
return {redis.call('HGET', KEYS[1], 'epoch'), redis.call('HGET', KEYS[1], 'gen'), redis.call('HGET', KEYS[1], 'listedAt') or ''}
`;

/**
 * What changed since an instance's copy. ARGV: its epoch, its gen. Answers `reload`, epoch, gen,
 * listedAt and every seed name and JSON when the epoch differs (the cache started again) or the
 * copy's gen is ahead of the cache's, else
 * `ok`, gen, listedAt and each seed changed after that gen with its JSON ('' when it is gone).
 */
export const SINCE = `${PRELUDE}
local gen = redis.call('HGET', KEYS[1], 'gen')
local at = redis.call('HGET', KEYS[1], 'listedAt') or ''
-- a copy ahead of the cache (Redis restored from an older snapshot) starts over too
if epoch ~= ARGV[1] or tonumber(ARGV[2]) > tonumber(gen) then
  local out = {'reload', epoch, gen, at}
  for _, v in ipairs(redis.call('HGETALL', KEYS[2])) do table.insert(out, v) end
  return out
end
local out = {'ok', gen, at}
for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. ARGV[2], '+inf')) do
  table.insert(out, name)
  table.insert(out, redis.call('HGET', KEYS[2], name) or '')
end
return out
`;
