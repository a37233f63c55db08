-- Extend a reader's hold of a read-write lock, or a semaphore permit, to a new fixed lease,
-- if the caller holds it. One round trip.
-- KEYS[1] the holders' sorted set (owner id -> lease deadline, server ms): a read-write
-- lock's readers, or a semaphore's permits; KEYS[2] (readers only) the readers'
-- hold-at-least deadlines (owner id -> deadline, server ms), read by release-rw.lua
-- ARGV[1] owner id, ARGV[2] the new lease ms, counted from now, ARGV[3] hold-at-least ms
-- ('0' for none): after its release the reader stays until at least that long after now,
-- in place of what an earlier extension recorded
-- Returns 1 when extended, 0 when the hold is gone (its lease ran out, or it was deleted or
-- released). Other holders' entries are never changed.
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not deadline or tonumber(deadline) <= nowMs then
  return 0
end
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', nowMs + lease, ARGV[1])
-- (Never shortening the set's own expiry: other holders' entries live in it.)
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
if ARGV[3] == '0' and KEYS[2] then
  redis.call('ZREM', KEYS[2], ARGV[1])
elseif ARGV[3] ~= '0' and KEYS[2] then
  local atLeast = tonumber(ARGV[3])
  -- Deadlines that passed are of readers released (or gone) since.
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs)
  redis.call('ZADD', KEYS[2], nowMs + atLeast, ARGV[1])
  -- Kept as long as the reader can still release, and as its deadline matters.
  local keep = math.max(lease, atLeast)
  if redis.call('PTTL', KEYS[2]) < keep then
    redis.call('PEXPIRE', KEYS[2], keep)
  end
end
return 1
