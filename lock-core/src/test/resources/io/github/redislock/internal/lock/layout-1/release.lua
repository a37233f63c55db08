-- Release an exclusive lock if the caller owns it. One round trip. Runs after
-- release-common.lua (holdRemainderMs, markReleased).
-- KEYS[1] lock hash, KEYS[2] fencing counter
-- ARGV[1] owner id, ARGV[2] release channel, ARGV[3] message, ARGV[4] the hold's fencing
-- token ('0' when unknown), ARGV[5] fencing counter retention ms, ARGV[6] hold-at-least
-- ms ('0' for none): the lock stays taken until that long after it was acquired. With the
-- token, timed by this server: the token is at least the server's clock in microseconds
-- when it was issued. Without it (RedLock), counted from now. ARGV[7] '1' to publish a
-- sharded message (see publish in release-common.lua). A hold that was extended keeps
-- the hold-at-least its extension recorded ('atleast', counted from the extension), when
-- that ends later.
-- Returns 1 when released (now or by an earlier run of this same release), 0 when no lock
-- was there, -1 when another owner holds it (then the lock is left untouched). A hold kept
-- for its hold-at-least gets the field 'kept' (the watchdog's renewal skips it), and its
-- waiters are told at once, as they would be of a release.
local fields = redis.call('HMGET', KEYS[1], 'owner', 'waiters', 'atleast')
local owner = fields[1]
if owner ~= ARGV[1] then
  -- A release that the client re-sent after a reconnect finds the mark its first run left.
  if ARGV[4] ~= '0' and redis.call('GET', KEYS[2]) == '-' .. ARGV[4] then
    return 1
  end
  if owner == false then
    return 0
  end
  return -1
end
local keep = 0
if ARGV[6] ~= '0' then
  keep = tonumber(ARGV[6])
  if ARGV[4] ~= '0' then
    keep = holdRemainderMs(ARGV[4], ARGV[6])
  end
end
if fields[3] then
  keep = math.max(keep, atLeastRemainderMs(fields[3]))
end
if keep > 0 then
  -- Still ours until then: nobody, not even this instance's next run, takes it sooner.
  -- Marked kept, so that a renewal on its way cannot stretch it back to a whole lease;
  -- waiters are told, so that they wait for the shorter time, not the lease they saw.
  redis.call('PEXPIRE', KEYS[1], keep)
  redis.call('HSET', KEYS[1], 'kept', '1')
  -- (A run of this release re-sent after the kept hold ended finds the mark.)
  markReleased(KEYS[2], ARGV[4], ARGV[5])
  if fields[2] then
    publish(ARGV[2], ARGV[3], ARGV[7])
  end
  return 1
end
redis.call('DEL', KEYS[1])
markReleased(KEYS[2], ARGV[4], ARGV[5])
-- Publish only when someone waits: an uncontended release sends no message.
if fields[2] then
  publish(ARGV[2], ARGV[3], ARGV[7])
end
return 1
