-- Acquire the read or write side of a read-write lock, or find what blocks it. One round trip.
-- KEYS[1] writer hash (owner, token), KEYS[2] readers zset (owner -> lease deadline in
-- server ms), KEYS[3] queued writer (owner of a waiting writer), KEYS[4] waiters flag,
-- KEYS[5] fencing counter
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] fencing counter retention ms,
-- ARGV[4] '1' when the caller waits if it fails, ARGV[5] '1' when other callers of this
-- instance wait for the lock, ARGV[6] 'r' or 'w', ARGV[7] the owner id's thread part
-- (instance id and thread id, each hold's owner id goes on with an acquisition number)
-- Returns the fencing token (> 0) when acquired, otherwise minus the ms after which the
-- obstacle's lease runs out; minus (2^40 + those ms) when the only obstacle is a queued
-- writer, so that the caller hands its wake-up on to that writer.
local owner = ARGV[1]
local lease = tonumber(ARGV[2])
local time = redis.call('TIME')
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
local nowMs = math.floor(nowUs / 1000)
-- Each reader has its own deadline: expired readers (crashed holders) stop counting.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs)

local function blocked(ttl, queuedOnly)
  if ttl < 1 then
    ttl = 1
  end
  if ARGV[4] == '1' then
    -- The flag and the marker must outlive the obstacle, whatever the waiter's own lease:
    -- the waiter tries again when the obstacle's lease would end (and then sets them
    -- again), and a release before that must find the flag to publish.
    local keep = math.max(lease, ttl) + 1000
    if redis.call('PTTL', KEYS[4]) < keep then
      redis.call('SET', KEYS[4], '1', 'PX', keep)
    end
    if ARGV[6] == 'w' then
      -- A waiting writer makes new readers queue behind it, so writers do not starve.
      local queued = redis.call('GET', KEYS[3])
      if queued == false or queued == owner then
        redis.call('SET', KEYS[3], owner, 'PX', keep)
      end
    end
  end
  if queuedOnly then
    return -(1099511627776 + ttl)
  end
  return -ttl
end

local function acquired(token)
  if ARGV[5] == '1' and redis.call('PTTL', KEYS[4]) < lease then
    -- (Never shortening a sign that another waiter left for longer.)
    redis.call('SET', KEYS[4], '1', 'PX', lease)
  end
  return token
end

local function nextToken()
  -- At least the server clock in microseconds: tokens keep increasing after the counter
  -- expired or Redis restarted empty.
  local token = nowUs
  local last = tonumber(redis.call('GET', KEYS[5])) or 0
  if last < 0 then
    -- Marked released by the holder of that token.
    last = -last
  end
  if last >= token then
    token = last + 1
  end
  redis.call('SET', KEYS[5], string.format('%.0f', token), 'PX', ARGV[3])
  return token
end

local writer = redis.call('HGET', KEYS[1], 'owner')
if ARGV[6] == 'w' then
  if writer == owner then
    -- Already ours: a command re-sent after a reconnect.
    redis.call('PEXPIRE', KEYS[1], lease)
    return tonumber(redis.call('HGET', KEYS[1], 'token'))
  end
  if writer then
    return blocked(redis.call('PTTL', KEYS[1]))
  end
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if last[1] then
    return blocked(tonumber(last[2]) - nowMs)
  end
  if redis.call('GET', KEYS[3]) == owner then
    redis.call('DEL', KEYS[3])
  end
  local token = nextToken()
  redis.call('HSET', KEYS[1], 'owner', owner, 'token', string.format('%.0f', token))
  redis.call('PEXPIRE', KEYS[1], lease)
  return acquired(token)
end

-- Read side: the thread that holds the write side may read too (downgrade); anyone else
-- waits for the writer, and for a queued writer.
if writer and string.sub(writer, 1, #ARGV[7]) ~= ARGV[7] then
  return blocked(redis.call('PTTL', KEYS[1]))
end
if not writer and redis.call('EXISTS', KEYS[3]) == 1 then
  return blocked(redis.call('PTTL', KEYS[3]), true)
end
local token = nextToken()
redis.call('ZADD', KEYS[2], nowMs + lease, owner)
if redis.call('PTTL', KEYS[2]) < lease then
  redis.call('PEXPIRE', KEYS[2], lease)
end
return acquired(token)
