-- Extend a held exclusive lock or write side to a new fixed lease, if the caller holds it.
-- One round trip.
-- KEYS[1] an exclusive lock (a string, see acquire.lua) or a read-write lock's write side (a hash)
-- ARGV[1] owner id, ARGV[2] the new lease ms, counted from now, ARGV[3] hold-at-least ms
-- ('0' for none): after its release the lock stays taken until at least that long after
-- now, recorded as 'atleast' (a deadline in this server's ms, which the release scripts
-- read; see atLeastRemainderMs in release-common.lua) in place of an earlier extension's
-- Returns 1 when extended, 0 when the hold is gone (expired, deleted, or released and kept
-- for its hold-at-least), -1 when another owner holds it. Only the caller's own hold is
-- ever changed. The hash is marked 'fixed': its lease is the caller's from now on, and the
-- watchdog's renewal (renew.lua) skips it, also one that was already on its way.
if string.sub(KEYS[1], -1) == '}' then
  -- An exclusive lock: a string 'token:until:flags:atleast:owner' (acquire.lua); 'f' marks
  -- it fixed, its deadline and hold-at-least are rewritten.
  local value = redis.pcall('GET', KEYS[1])
  if type(value) ~= 'string' then
    if type(value) == 'table' and redis.call('HEXISTS', KEYS[1], 'owner') == 1 then
      return -1
    end
    return 0
  end
  local token, untilMs, flags, atleast, owner = string.match(value, '^(%d+):(%d+):(%a*):(%d*):(.*)$')
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if tonumber(untilMs) <= nowMs then
    return 0
  end
  if owner ~= ARGV[1] then
    return -1
  end
  if string.find(flags, 'k', 1, true) then
    return 0
  end
  if not string.find(flags, 'f', 1, true) then
    flags = flags .. 'f'
  end
  if ARGV[3] == '0' then
    atleast = ''
  else
    atleast = string.format('%.0f', nowMs + tonumber(ARGV[3]))
  end
  local lease = tonumber(ARGV[2])
  redis.call('SET', KEYS[1], token .. ':' .. string.format('%.0f', nowMs + lease) .. ':' .. flags .. ':' .. atleast
    .. ':' .. owner, 'PX', string.format('%.0f', lease + math.max(2 * lease, 60000)))
  return 1
end
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
