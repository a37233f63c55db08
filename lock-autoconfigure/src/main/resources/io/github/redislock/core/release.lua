-- Release an exclusive lock if the caller owns it. One round trip.
-- KEYS[1] lock hash; ARGV[1] owner id, ARGV[2] release channel, ARGV[3] message
-- Returns 1 when released, 0 when no lock was there, -1 when another owner holds it
-- (then the lock is left untouched).
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner == false then
  return 0
end
if owner ~= ARGV[1] then
  return -1
end
local waiters = redis.call('HEXISTS', KEYS[1], 'waiters')
redis.call('DEL', KEYS[1])
-- Publish only when someone waits: an uncontended release sends no message.
if waiters == 1 then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
