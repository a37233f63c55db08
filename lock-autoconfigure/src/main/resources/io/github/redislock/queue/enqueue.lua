-- Enqueue a task, deduplicated by id among the tasks waiting (due or not). One round trip.
-- KEYS[1] ready zset (id -> due ms), KEYS[2] payloads hash
-- ARGV[1] id, ARGV[2] payload, ARGV[3] delay ms, ARGV[4] '1' to replace a waiting task,
-- ARGV[5] notification channel, ARGV[6] queue name
-- Returns 1 when enqueued or replaced, 0 when the id was waiting and kept.
local time = redis.call('TIME')
local due = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[3])
if ARGV[4] ~= '1' and redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], due, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if tonumber(ARGV[3]) <= 0 then
  -- Wake idle workers at once; delayed tasks are found when they fall due.
  redis.call('PUBLISH', ARGV[5], ARGV[6])
end
return 1
