-- Renew the leases of many locks at once (the watchdog's tick). All KEYS share one slot.
-- KEYS[i] lock hash; ARGV[1] lease ms, ARGV[i + 1] owner id of KEYS[i]
-- Returns a list: 1 where the lease was renewed, 0 where the lock is gone or not ours.
local result = {}
for i, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'owner') == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
