-- Depths of one queue, read-only.
-- Returns {due now, delayed, in flight, dead, ms the oldest due task has waited, 1 when
-- paused (else 0)}
local parked = redis.call('ZCARD', PARKED)
local due = redis.call('ZCOUNT', READY, '-inf', now) + parked
local waiting = redis.call('ZCARD', READY) + parked
local lag = 0
local oldest = due_waiting(1)
if oldest[1] and tonumber(oldest[2]) <= now then
  lag = now - tonumber(oldest[2])
end
return { due, waiting - due, redis.call('ZCARD', INFLIGHT), redis.call('ZCARD', DEAD), lag,
  redis.call('EXISTS', PAUSED) }
