-- Take one permit of a semaphore, or find when the next one frees up. One round trip.
-- Each permit is its own entry with its own lease: a crashed holder's permit returns when
-- its lease ends; expired entries are dropped here, by this server's clock.
-- KEYS[1] permits zset (owner id -> lease deadline, server ms), KEYS[2] waiters flag,
-- KEYS[3] fencing counter
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] permits (the caller's limit),
-- ARGV[4] fencing counter retention ms, ARGV[5] '1' when the caller waits if it fails,
-- ARGV[6] '1' when other callers of this instance wait (a release must then announce itself)
-- Returns a token (> 0) when the caller holds a permit, otherwise minus the ms until the
-- earliest permit's lease ends.
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
if mine or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  -- (Already ours: a command re-sent after a reconnect; a fresh lease.)
  redis.call('ZADD', KEYS[1], nowMs + lease, ARGV[1])
  if redis.call('PTTL', KEYS[1]) < lease then
    redis.call('PEXPIRE', KEYS[1], lease)
  end
  local token = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local last = math.abs(tonumber(redis.call('GET', KEYS[3])) or 0)
  if last >= token then
    token = last + 1
  end
  redis.call('SET', KEYS[3], string.format('%.0f', token), 'PX', ARGV[4])
  if ARGV[6] == '1' and redis.call('PTTL', KEYS[2]) < lease then
    -- (Never shortening a sign another waiter left for longer.)
    redis.call('SET', KEYS[2], '1', 'PX', lease)
  end
  return token
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = math.floor(tonumber(first[2]) - nowMs)
if wait < 1 then
  wait = 1
end
if ARGV[5] == '1' then
  -- The sign must outlive what the caller waits for, whatever its own lease: it tries
  -- again when the earliest permit's lease would end (and sets it again then), and any
  -- release before that must find it to announce itself.
  local keep = math.max(lease, wait) + 1000
  if redis.call('PTTL', KEYS[2]) < keep then
    redis.call('SET', KEYS[2], '1', 'PX', keep)
  end
end
return -wait
