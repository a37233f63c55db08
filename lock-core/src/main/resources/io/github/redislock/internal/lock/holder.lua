-- Who holds a lock, read-only. KEYS[1] an exclusive lock (a string), a lock hash (owner,
-- token: a write side, or an exclusive lock of the previous layout) or a sorted set of holders (owner -> lease deadline in server ms: readers,
-- semaphore permits).
-- Returns {owner, token, lease left ms}, or {} when no one holds it; for a sorted set,
-- the holder whose lease ends last, with token ''.
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'string' then
  -- An exclusive lock: 'token:until:flags:atleast:owner' (acquire.lua); held until 'until'.
  local token, untilMs, flags, atleast, owner = string.match(redis.call('GET', KEYS[1]),
    '^(%d+):(%d+):(%a*):(%d*):(.*)$')
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if owner and tonumber(untilMs) > now then
    return { owner, token, tonumber(untilMs) - now }
  end
elseif kind == 'hash' then
  local owner = redis.call('HGET', KEYS[1], 'owner')
  if owner then
    return { owner, redis.call('HGET', KEYS[1], 'token') or '', redis.call('PTTL', KEYS[1]) }
  end
elseif kind == 'zset' then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local last = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. now, 'WITHSCORES', 'LIMIT', 0, 1)
  if last[1] then
    return { last[1], '', tonumber(last[2]) - now }
  end
end
return {}
