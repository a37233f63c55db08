-- Extend a held exclusive lock or write side to a new fixed lease, if the caller holds it.
-- One round trip.
-- KEYS[1] lock hash (an exclusive lock, or a read-write lock's write side)
-- ARGV[1] owner id, ARGV[2] the new lease ms, counted from now, ARGV[3] hold-at-least ms
-- ('0' for none): after its release the lock stays taken until at least that long after
-- now, recorded as 'atleast' (a deadline in this server's ms, which the release scripts
-- read; see atLeastRemainderMs in release-common.lua) in place of an earlier extension's
-- Returns 1 when extended, 0 when the hold is gone (expired, deleted, or released and kept
-- for its hold-at-least), -1 when another owner holds it. Only the caller's own hold is
-- ever changed. The hash is marked 'fixed': its lease is the caller's from now on, and the
-- watchdog's renewal (renew.lua) skips it, also one that was already on its way.
local fields = redis.call('HMGET', KEYS[1], 'owner', 'kept')
if fields[1] ~= ARGV[1] then
  if fields[1] == false then
    return 0
  end
  return -1
end
if fields[2] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ARGV[3] == '0' then
  redis.call('HSET', KEYS[1], 'fixed', '1')
  redis.call('HDEL', KEYS[1], 'atleast')
else
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('HSET', KEYS[1], 'fixed', '1', 'atleast', string.format('%.0f', nowMs + tonumber(ARGV[3])))
end
return 1
