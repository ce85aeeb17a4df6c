/**
 * The Lua scripts of the shoot usage store (./usage.ts). Every script takes
 * KEYS[1] = the counts hash (seed name → shoots counted there), KEYS[2] = the records hash
 * (`<namespace>/<name>` → the shoot's record, JSON), both with the marker field `.built`, and
 * KEYS[3] = the change log (a list of the seeds whose count changed, the newest last, at most
 * CHANGE_LOG_LENGTH); when a marker is missing (Redis flushed, a key deleted) a script changes
 * nothing and answers `miss`, and the caller rebuilds both hashes from the API once.
 *
 * The records hash also holds `.epoch` (set by each rebuild) and `.gen` (changes logged since that
 * rebuild); a log entry is `<token> <seed>`, the token `<server time>:<gen>` unique to the entry.
 * An instance's copy of some counts (./usage.ts countsOf) is brought up to date from the log's
 * tail (COUNTS_SINCE), and starts over when the epoch differs, the log no longer reaches back to
 * its gen, or the entry it saw last is not where it was (Redis restored from an older snapshot, a
 * failover to a replica that lagged). Fields that start with a dot are never shoot keys.
 *
 * A record is `{s: [seeds the shoot counts on], r: reserved seed, t: reserved at (ms), v: resourceVersion}`.
 * The shoot counts once on every seed of `s` ∪ {`r`}: `s` is usageSeeds of the shoot as last read
 * (spec.seedName, then a different status.seedName), `r` a reservation taken before binding. Each
 * script computes the shoot's seeds before and after and applies only the difference to the counts,
 * so applying the same state twice changes nothing.
 */

/** How many changes the log keeps (each binding logs one or two). */
export const CHANGE_LOG_LENGTH = 10_000;

const PRELUDE = `
local MARK = '.built'
if redis.call('HEXISTS', KEYS[1], MARK) == 0 or redis.call('HEXISTS', KEYS[2], MARK) == 0 then
  return {'miss'}
end
local function logged(seed)
  local gen = redis.call('HINCRBY', KEYS[2], '.gen', 1)
  local t = redis.call('TIME')
  redis.call('RPUSH', KEYS[3], t[1] .. '.' .. t[2] .. ':' .. gen .. ' ' .. seed)
  redis.call('LTRIM', KEYS[3], -${CHANGE_LOG_LENGTH}, -1)
end
local function decode(raw)
  if not raw then return {s = {}} end
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' then return {s = {}} end
  if type(rec.s) ~= 'table' then rec.s = {} end
  if type(rec.r) ~= 'string' then rec.r = nil; rec.t = nil end
  return rec
end
local function counted(rec)
  local set = {}
  for _, seed in ipairs(rec.s) do set[seed] = true end
  if rec.r then set[rec.r] = true end
  return set
end
local function store(shoot, before, rec)
  local after = counted(rec)
  for seed in pairs(before) do
    if not after[seed] then
      if redis.call('HINCRBY', KEYS[1], seed, -1) <= 0 then redis.call('HDEL', KEYS[1], seed) end
      logged(seed)
    end
  end
  for seed in pairs(after) do
    if not before[seed] then
      redis.call('HINCRBY', KEYS[1], seed, 1)
      logged(seed)
    end
  end
  if #rec.s == 0 and not rec.r then
    redis.call('HDEL', KEYS[2], shoot)
  else
    redis.call('HSET', KEYS[2], shoot, cjson.encode(rec))
  end
end
local function live(rec, now, ttl)
  return rec.r ~= nil and now - (tonumber(rec.t) or 0) < ttl
end
`;

/**
 * The shoot as read from the API. ARGV: shoot key, resourceVersion, now (ms), reservation TTL (ms),
 * `1` when spec.seedName is set, then its usage seeds. A read older than the record's (both
 * resourceVersions numbers) is ignored (`stale`). A reservation is kept while the shoot is unbound
 * and the reservation young; binding (to it or elsewhere) or its age ends it.
 */
export const SYNC = `${PRELUDE}
local shoot, rv, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local rec = decode(redis.call('HGET', KEYS[2], shoot))
local newer, older = tonumber(rv), tonumber(rec.v)
if newer and older and newer < older then return {'stale'} end
local before = counted(rec)
local seeds = {}
for i = 6, #ARGV do table.insert(seeds, ARGV[i]) end
local after = {s = seeds, v = rv}
if ARGV[5] ~= '1' and live(rec, now, ttl) then after.r = rec.r; after.t = rec.t end
store(shoot, before, after)
return {'ok'}
`;

/** The shoot is gone. ARGV: shoot key. */
export const FORGET = `${PRELUDE}
local shoot = ARGV[1]
local rec = decode(redis.call('HGET', KEYS[2], shoot))
store(shoot, counted(rec), {s = {}})
return {'ok'}
`;

/**
 * Reserve a slot on a seed for the shoot before binding it. ARGV: shoot key, seed, allocatable
 * shoots (-1: no limit), now (ms), reservation TTL (ms). `busy` when the shoot already has a live
 * reservation (another replica is binding it); `full` (with the count) when the seed has no room
 * left; else the shoot counts on the seed (once) and `ok`.
 */
export const RESERVE = `${PRELUDE}
local shoot, seed, alloc, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local rec = decode(redis.call('HGET', KEYS[2], shoot))
if live(rec, now, ttl) then return {'busy', rec.r} end
local before = counted(rec)
local used = tonumber(redis.call('HGET', KEYS[1], seed) or '0')
if alloc >= 0 and not before[seed] and used >= alloc then return {'full', tostring(used)} end
rec.r = seed
rec.t = now
store(shoot, before, rec)
return {'ok', tostring(used + (before[seed] and 0 or 1))}
`;

/** Drop the shoot's reservation of a seed (the binding did not happen). ARGV: shoot key, seed. */
export const RELEASE = `${PRELUDE}
local shoot, seed = ARGV[1], ARGV[2]
local rec = decode(redis.call('HGET', KEYS[2], shoot))
if rec.r ~= seed then return {'none'} end
local before = counted(rec)
rec.r = nil
rec.t = nil
store(shoot, before, rec)
return {'ok'}
`;

/**
 * The counts an instance's copy lacks. ARGV: the copy's epoch, gen and token (of the last entry it
 * saw, '' for none), then the seeds it has no count of. `{'reset', epoch, gen, token}` when the
 * copy cannot be brought up to date (another rebuild, the log no longer reaching back to its gen,
 * its last entry not where it was): the caller starts an empty copy there and asks again. Else
 * `{'ok', epoch, gen, token, n, <n pairs of seed and count changed since the copy's gen>, <the
 * count of each seed asked for>}` (a seed without shoots counts 0). `miss` also when the store has
 * no epoch (built by an earlier version): the caller rebuilds it.
 */
export const COUNTS_SINCE = `
if redis.call('HEXISTS', KEYS[1], '.built') == 0 or redis.call('HEXISTS', KEYS[2], '.built') == 0 then
  return {'miss'}
end
local epoch = redis.call('HGET', KEYS[2], '.epoch')
if not epoch then return {'miss'} end
local gen = tonumber(redis.call('HGET', KEYS[2], '.gen') or '0')
local len = redis.call('LLEN', KEYS[3])
local function token(entry) return string.sub(entry, 1, (string.find(entry, ' ', 1, true) or 1) - 1) end
local last = ''
if len > 0 then last = token(redis.call('LINDEX', KEYS[3], -1)) end
local since, seen = tonumber(ARGV[2]), ARGV[3]
local ok = epoch == ARGV[1] and since ~= nil and since <= gen and gen - since <= len
if ok and seen ~= '' then
  -- the entry with the copy's gen must still be the one it saw
  ok = gen - since < len and token(redis.call('LINDEX', KEYS[3], since - gen - 1)) == seen
end
if not ok then return {'reset', epoch, tostring(gen), last} end
local out = {'ok', epoch, tostring(gen), last, 0}
local n = 0
if gen > since then
  local changed = {}
  for _, entry in ipairs(redis.call('LRANGE', KEYS[3], since - gen, -1)) do
    local seed = string.sub(entry, #token(entry) + 2)
    if not changed[seed] then
      changed[seed] = true
      n = n + 1
      table.insert(out, seed)
      table.insert(out, redis.call('HGET', KEYS[1], seed) or '0')
    end
  end
end
out[5] = tostring(n)
for i = 4, #ARGV do table.insert(out, redis.call('HGET', KEYS[1], ARGV[i]) or '0') end
return out
`;

/**
 * Replace both hashes with the state of a full Shoot list. ARGV: JSON `{<shoot key>: {s, v, b}}`
 * (b = 1 when spec.seedName is set) of every listed shoot, now (ms), reservation TTL (ms), the new
 * epoch. Live reservations of shoots the list shows unbound are kept (their binding is in flight).
 * The change log starts over (copies of the counts see the new epoch and start over too).
 */
export const REBUILD = `
local MARK = '.built'
local data, now, ttl = cjson.decode(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local keep = {}
local old = redis.call('HGETALL', KEYS[2])
for i = 1, #old, 2 do
  if string.sub(old[i], 1, 1) ~= '.' then
    local ok, rec = pcall(cjson.decode, old[i + 1])
    local cur = data[old[i]]
    if ok and type(rec) == 'table' and type(rec.r) == 'string' and now - (tonumber(rec.t) or 0) < ttl
      and cur and cur.b == 0 then
      keep[old[i]] = rec
    end
  end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
local counts = {}
for shoot, cur in pairs(data) do
  local rec = {s = cur.s, v = cur.v}
  if keep[shoot] then rec.r = keep[shoot].r; rec.t = keep[shoot].t end
  local set = {}
  for _, seed in ipairs(rec.s) do set[seed] = true end
  if rec.r then set[rec.r] = true end
  for seed in pairs(set) do counts[seed] = (counts[seed] or 0) + 1 end
  if #rec.s > 0 or rec.r then redis.call('HSET', KEYS[2], shoot, cjson.encode(rec)) end
end
for seed, n in pairs(counts) do redis.call('HSET', KEYS[1], seed, n) end
redis.call('HSET', KEYS[1], MARK, now)
redis.call('HSET', KEYS[2], MARK, now, '.epoch', ARGV[4], '.gen', 0)
return {'ok'}
`;
