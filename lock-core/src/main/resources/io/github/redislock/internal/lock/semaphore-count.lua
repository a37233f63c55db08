-- How many permits of a semaphore are held now (entries whose lease has not ended, by this
-- server's clock). Read-only.
-- KEYS[1] permits zset
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. nowMs, '+inf')
