-- Release an exclusive lock if the caller owns it. One round trip: three commands (GET,
-- TIME, SET), and a publish when someone waits. Runs after release-common.lua (publish).
-- KEYS[1] the lock (a string, see acquire.lua)
-- ARGV[1] owner id, ARGV[2] release channel, ARGV[3] message, ARGV[4] the hold's fencing
-- token ('0' when unknown), ARGV[5] retention ms (how long the key outlives the hold),
-- ARGV[6] hold-at-least ms ('0' for none): the lock stays taken until that long after it
-- was acquired. With the token, timed by this server: the token is at least the server's
-- clock in microseconds when it was issued. Without it (RedLock), counted from now.
-- ARGV[7] '1' to publish a sharded message (see publish in release-common.lua). A hold
-- that was extended keeps the hold-at-least its extension recorded (counted from the
-- extension), when that ends later.
-- Returns 1 when released (now or by an earlier run of this same release), 0 when the
-- hold was gone (its lease ran out, or it was deleted), -1 when another owner holds it
-- (then the lock is left untouched). The key is kept, with the last token and the owner,
-- its deadline 0: a release re-sent after a reconnect finds it so. A hold kept for its
-- hold-at-least gets the flag 'k' and a deadline that far off (the watchdog's renewal
-- skips it), and its waiters are told at once, as they would be of a release.
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'table' then
  -- A layout-1 hash (before 2026-11-27): not a hold of this layout.
  if redis.call('HEXISTS', KEYS[1], 'owner') == 1 then
    return -1
  end
  return 0
end
if not value then
  return 0
end
local token, untilMs, flags, atleast, owner = string.match(value, '^(%d+):(%d+):(%a*):(%d*):(.*)$')
local time = redis.call('TIME')
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
local nowMs = math.floor(nowUs / 1000)
untilMs = tonumber(untilMs)
if owner ~= ARGV[1] then
  if untilMs > nowMs then
    return -1
  end
  return 0
end
if untilMs == 0 or string.find(flags, 'k', 1, true) then
  -- Released already: this release re-sent after a reconnect, or the hold being kept.
  return 1
end
if untilMs <= nowMs then
  -- Its lease ran out: nobody took it since, but the hold was gone.
  redis.call('SET', KEYS[1], token .. ':0::' .. atleast .. ':' .. owner, 'KEEPTTL')
  return 0
end
local keep = 0
if ARGV[6] ~= '0' then
  keep = tonumber(ARGV[6])
  if ARGV[4] ~= '0' then
    keep = math.ceil((tonumber(ARGV[4]) + keep * 1000 - nowUs) / 1000)
  end
end
if atleast ~= '' then
  keep = math.max(keep, tonumber(atleast) - nowMs)
end
local waiters = string.find(flags, 'w', 1, true)
if keep > 0 then
  -- Still ours until then: nobody, not even this instance's next run, takes it sooner.
  -- Marked kept, so that a renewal on its way cannot stretch it back to a whole lease;
  -- waiters are told, so that they wait for the shorter time, not the lease they saw.
  -- The key's time to live is never shortened: the token stays for the retention its
  -- acquisition (or last renewal) gave it, from twice the lease, and longer if need be.
  local ttl = math.max(keep + tonumber(ARGV[5]), redis.call('PTTL', KEYS[1]))
  redis.call('SET', KEYS[1], token .. ':' .. string.format('%.0f', nowMs + keep) .. ':k:' .. atleast .. ':' .. owner,
    'PX', string.format('%.0f', ttl))
else
  redis.call('SET', KEYS[1], token .. ':0::' .. atleast .. ':' .. owner, 'KEEPTTL')
end
-- Publish only when someone waits: an uncontended release sends no message.
if waiters then
  publish(ARGV[2], ARGV[3], ARGV[7])
end
return 1
