-- How long the readers of a read-write lock still hold it: the ms until the last reader's
-- deadline, 0 when no reader holds it. Reads only.
-- KEYS[1] readers zset
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[1] then
  local left = tonumber(last[2]) - nowMs
  if left > 0 then
    return left
  end
end
return 0
