-- Delete a lock whoever holds it, and wake its waiters.
-- KEYS[1] lock hash; ARGV[1] release channel, ARGV[2] message, ARGV[3] '1' to publish it
-- sharded (SPUBLISH, when the server has it)
-- Returns 1 when a lock was deleted, 0 when there was none.
if redis.call('DEL', KEYS[1]) == 1 then
  if ARGV[3] == '1' and redis.REDIS_VERSION_NUM then
    redis.call('SPUBLISH', ARGV[1], ARGV[2])
  else
    redis.call('PUBLISH', ARGV[1], ARGV[2])
  end
  return 1
end
return 0
