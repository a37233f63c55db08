-- Depths of one queue, read-only. KEYS[1] ready, KEYS[2] in-flight, KEYS[3] dead
-- Returns {due now, delayed, in flight, dead, ms the oldest due task has waited}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local waiting = redis.call('ZCARD', KEYS[1])
local lag = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[1] and tonumber(oldest[2]) <= now then
  lag = now - tonumber(oldest[2])
end
return { due, waiting - due, redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]), lag }
