-- Free a lock whoever holds it, and wake its waiters.
-- KEYS[1] the lock: an exclusive lock (a string, see acquire.lua: its deadline is set to 0,
-- the last token kept, so that tokens stay monotonic) or a write side (a hash, deleted)
-- ARGV[1] release channel, ARGV[2] message, ARGV[3] '1' to publish it sharded (SPUBLISH,
-- when the server has it)
-- Returns 1 when a hold was there, 0 when there was none.
local freed = 0
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'string' then
  local token, untilMs, flags, atleast, owner = string.match(value, '^(%d+):(%d+):(%a*):(%d*):(.*)$')
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if tonumber(untilMs) > nowMs then
    -- Another owner than its holder's, so that the holder's release finds it gone.
    redis.call('SET', KEYS[1], token .. ':0:::', 'KEEPTTL')
    freed = 1
  end
elseif redis.call('DEL', KEYS[1]) == 1 then
  freed = 1
end
if freed == 1 then
  if ARGV[3] == '1' and redis.REDIS_VERSION_NUM then
    redis.call('SPUBLISH', ARGV[1], ARGV[2])
  else
    redis.call('PUBLISH', ARGV[1], ARGV[2])
  end
end
return freed
