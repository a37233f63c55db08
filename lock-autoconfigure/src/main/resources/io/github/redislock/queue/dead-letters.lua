-- Manage dead letters. KEYS as in settle.lua.
-- ARGV[1] 'requeue' (ARGV[2] id: back to ready now, attempts reset) or 'purge' (all)
-- Returns how many tasks were affected.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if ARGV[1] == 'requeue' then
  if redis.call('ZREM', KEYS[6], ARGV[2]) == 0 then
    return 0
  end
  redis.call('HDEL', KEYS[7], ARGV[2])
  redis.call('HDEL', KEYS[5], ARGV[2])
  redis.call('ZADD', KEYS[1], 'NX', now, ARGV[2])
  return 1
end
local ids = redis.call('ZRANGE', KEYS[6], 0, -1)
for _, id in ipairs(ids) do
  redis.call('HDEL', KEYS[5], id)
  if not redis.call('ZSCORE', KEYS[1], id) and not redis.call('ZSCORE', KEYS[3], id) then
    redis.call('HDEL', KEYS[2], id)
  end
end
redis.call('DEL', KEYS[6], KEYS[7])
return #ids
