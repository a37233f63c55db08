-- Delete a lock whoever holds it, and wake its waiters.
-- KEYS[1] lock hash; ARGV[1] release channel, ARGV[2] message
-- Returns 1 when a lock was deleted, 0 when there was none.
if redis.call('DEL', KEYS[1]) == 1 then
  redis.call('PUBLISH', ARGV[1], ARGV[2])
  return 1
end
return 0
