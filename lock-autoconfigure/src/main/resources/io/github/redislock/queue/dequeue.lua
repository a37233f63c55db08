-- Remove a waiting task only if its due time still matches (a task enqueued again
-- meanwhile is left alone).
-- KEYS[1] ready zset, KEYS[2] payloads hash; ARGV[1] id, ARGV[2] due ms
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
