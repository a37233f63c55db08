-- Give back one permit if the caller holds it; frees only that permit. One round trip.
-- KEYS[1] permits zset, KEYS[2] waiters flag
-- ARGV[1] owner id, ARGV[2] release channel, ARGV[3] message, ARGV[4] '1' to publish it
-- sharded (SPUBLISH, when the server has it)
-- Returns 1 when released, 0 when the permit was no longer there (its lease ran out, or it
-- was deleted).
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
-- Publish only when someone waits; the flag goes with the message.
if redis.call('DEL', KEYS[2]) == 1 then
  if ARGV[4] == '1' and redis.REDIS_VERSION_NUM then
    redis.call('SPUBLISH', ARGV[2], ARGV[3])
  else
    redis.call('PUBLISH', ARGV[2], ARGV[3])
  end
end
return removed
