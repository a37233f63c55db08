-- A waiting writer gives up: readers queued behind it may go.
-- KEYS[1] queued writer, KEYS[2] waiters flag; ARGV[1] owner id, ARGV[2] channel, ARGV[3] message,
-- ARGV[4] '1' to publish it sharded (SPUBLISH, when the server has it)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if redis.call('DEL', KEYS[2]) == 1 then
    if ARGV[4] == '1' and redis.REDIS_VERSION_NUM then
      redis.call('SPUBLISH', ARGV[2], ARGV[3])
    else
      redis.call('PUBLISH', ARGV[2], ARGV[3])
    end
  end
  return 1
end
return 0
