-- Settle claimed tasks, each only if its claim token still matches (a worker that lost
-- its claim cannot touch a task someone else now runs).
-- KEYS[1] ready, KEYS[2] payloads, KEYS[3] in-flight, KEYS[4] claims, KEYS[5] attempts,
-- KEYS[6] dead zset (id -> died at ms), KEYS[7] dead info hash
-- ARGV[1] action: 'ack' (done), 'extend' (push the deadline out by ARGV[2] ms), 'retry'
-- (back to ready after ARGV[2] ms), 'dead' (to the dead letters, ARGV[2] = info,
-- ARGV[3] max dead, ARGV[4] max dead age ms), 'release' (back to ready now, attempt not
-- counted); then ARGV[5..] pairs of id, token
-- Returns a list: 1 where settled, 0 where the claim no longer matched.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local action = ARGV[1]
local result = {}

local function forget(id)
  -- The payload stays while a task of the same id waits or lies dead.
  if not redis.call('ZSCORE', KEYS[1], id) and not redis.call('ZSCORE', KEYS[6], id) then
    redis.call('HDEL', KEYS[2], id)
  end
end

for i = 5, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[4], id) ~= ARGV[i + 1] then
    table.insert(result, 0)
  else
    table.insert(result, 1)
    if action == 'extend' then
      redis.call('ZADD', KEYS[3], 'XX', now + tonumber(ARGV[2]), id)
    else
      redis.call('ZREM', KEYS[3], id)
      redis.call('HDEL', KEYS[4], id)
      if action == 'ack' then
        redis.call('HDEL', KEYS[5], id)
        forget(id)
      elseif action == 'retry' then
        redis.call('ZADD', KEYS[1], 'NX', now + tonumber(ARGV[2]), id)
      elseif action == 'release' then
        redis.call('HINCRBY', KEYS[5], id, -1)
        redis.call('ZADD', KEYS[1], 'NX', now, id)
      elseif action == 'dead' then
        redis.call('ZADD', KEYS[6], now, id)
        redis.call('HSET', KEYS[7], id, ARGV[2])
        -- Dead letters are bounded in age and number: the oldest go first.
        local trimmed = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[4]))
        local excess = redis.call('ZCARD', KEYS[6]) - #trimmed - tonumber(ARGV[3])
        if excess > 0 then
          trimmed = redis.call('ZRANGE', KEYS[6], 0, #trimmed + excess - 1)
        end
        for _, old in ipairs(trimmed) do
          redis.call('ZREM', KEYS[6], old)
          redis.call('HDEL', KEYS[7], old)
          redis.call('HDEL', KEYS[5], old)
          forget(old)
        end
      end
    end
  end
end
return result
