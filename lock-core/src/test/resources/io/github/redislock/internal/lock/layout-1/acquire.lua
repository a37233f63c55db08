-- Acquire an exclusive lock, or find who holds it. One round trip.
-- KEYS[1] lock hash (owner, token, waiters), KEYS[2] fencing counter
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] fencing counter retention ms,
-- ARGV[4] '1' when the caller waits if it fails, ARGV[5] '1' when other callers of this
-- instance wait for the lock
-- Returns the fencing token (> 0) when the caller holds the lock, otherwise minus the
-- holder's remaining lease in ms.
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner == false then
  -- The token is at least the server's clock in microseconds, so tokens keep increasing
  -- after the counter expired or Redis restarted empty.
  local now = redis.call('TIME')
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local last = tonumber(redis.call('GET', KEYS[2])) or 0
  if last < 0 then
    -- Marked released by the holder of that token.
    last = -last
  end
  if last >= token then
    token = last + 1
  end
  local text = string.format('%.0f', token)
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', text)
  if ARGV[5] == '1' then
    redis.call('HSET', KEYS[1], 'waiters', '1')
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], text, 'PX', ARGV[3])
  return token
end
if owner == ARGV[1] then
  -- Already ours: a command re-sent after a reconnect. Same token, fresh lease.
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(redis.call('HGET', KEYS[1], 'token'))
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'waiters', '1')
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then
  ttl = 1
end
return -ttl
