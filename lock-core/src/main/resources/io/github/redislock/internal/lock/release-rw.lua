-- Release the read or write side of a read-write lock if the caller holds it. Runs after
-- release-common.lua (holdRemainderMs, markReleased).
-- KEYS[1] writer hash, KEYS[2] readers zset, KEYS[3] waiters flag, KEYS[4] fencing counter,
-- KEYS[5] readers' hold-at-least deadlines recorded by their extensions (extend-member.lua)
-- ARGV[1] owner id, ARGV[2] release channel, ARGV[3] message, ARGV[4] 'r' or 'w',
-- ARGV[5] the hold's fencing token ('0' when unknown), ARGV[6] fencing counter retention ms,
-- ARGV[7] hold-at-least ms ('0' for none): the hold stays until that long after the token
-- was issued (the token is at least the server's clock in microseconds then), ARGV[8] '1'
-- to publish a sharded message. A hold that was extended keeps the hold-at-least its
-- extension recorded (counted from the extension), when that ends later: the write side's
-- 'atleast' field, a reader's entry in KEYS[5].
-- Returns 1 when released (now or by an earlier run of this same release), 0 when the
-- hold was gone (expired or deleted; flagged waiters are then told if the lock is free),
-- -1 when another owner holds the write side (then it is left untouched).
local function releasedBefore()
  -- A release that the client re-sent after a reconnect finds the mark its first run left.
  return ARGV[5] ~= '0' and redis.call('GET', KEYS[4]) == '-' .. ARGV[5]
end
-- How long the hold must stay, in ms (0 or less: none).
local function keep()
  if ARGV[7] == '0' or ARGV[5] == '0' then
    return 0
  end
  return holdRemainderMs(ARGV[5], ARGV[7])
end
-- The hold ran out before this release (a fixed lease shorter than the work): the lock
-- may have been free since, and nothing told the waiters, some of whom may wait for
-- something longer (a queued writer's marker). Tell them now, if it is free.
local function wakeIfFree(nowMs)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs)
  if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('ZCARD', KEYS[2]) == 0
      and redis.call('DEL', KEYS[3]) == 1 then
    publish(ARGV[2], ARGV[3], ARGV[8])
  end
end
-- A hold now ends sooner than its lease: whoever waits tries again and waits for that.
local function tellWaiters()
  if redis.call('EXISTS', KEYS[3]) == 1 then
    publish(ARGV[2], ARGV[3], ARGV[8])
  end
end
local function serverMillis()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
if ARGV[4] == 'w' then
  local fields = redis.call('HMGET', KEYS[1], 'owner', 'atleast')
  local writer = fields[1]
  if writer ~= ARGV[1] then
    if releasedBefore() then
      return 1
    end
    if writer then
      return -1
    end
    wakeIfFree(serverMillis())
    return 0
  end
  local keepMs = keep()
  if fields[2] then
    keepMs = math.max(keepMs, atLeastRemainderMs(fields[2]))
  end
  if keepMs > 0 then
    -- Kept: no renewal may stretch it again (renew.lua skips 'kept'), and waiters are told
    -- that it now ends sooner than the lease they saw.
    redis.call('PEXPIRE', KEYS[1], keepMs)
    redis.call('HSET', KEYS[1], 'kept', '1')
    -- (A run of this release re-sent after the kept hold ended finds the mark.)
    markReleased(KEYS[4], ARGV[5], ARGV[6])
    tellWaiters()
    return 1
  end
  redis.call('DEL', KEYS[1])
  markReleased(KEYS[4], ARGV[5], ARGV[6])
else
  local nowMs = serverMillis()
  local deadline = redis.call('ZSCORE', KEYS[2], ARGV[1])
  local keepMs = keep()
  local atLeast = redis.call('ZSCORE', KEYS[5], ARGV[1])
  if atLeast then
    redis.call('ZREM', KEYS[5], ARGV[1])
    keepMs = math.max(keepMs, tonumber(atLeast) - nowMs)
  end
  if deadline and tonumber(deadline) > nowMs and keepMs > 0 then
    -- Our entry stays until then, under a name of its own that no renewal knows (it must
    -- not stretch it again); the set must live as long. Waiters are told that it now
    -- ends sooner.
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('ZADD', KEYS[2], nowMs + keepMs, ARGV[1] .. ':kept')
    if redis.call('PTTL', KEYS[2]) < keepMs then
      redis.call('PEXPIRE', KEYS[2], keepMs)
    end
    markReleased(KEYS[4], ARGV[5], ARGV[6])
    tellWaiters()
    return 1
  end
  if not deadline and redis.call('ZSCORE', KEYS[2], ARGV[1] .. ':kept') then
    -- A re-sent run of a release that kept this reader.
    return 1
  end
  -- Only our own entry goes: other readers keep theirs.
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs)
  if not deadline or tonumber(deadline) <= nowMs then
    if not deadline and releasedBefore() then
      return 1
    end
    wakeIfFree(nowMs)
    return 0
  end
  markReleased(KEYS[4], ARGV[5], ARGV[6])
  if redis.call('ZCARD', KEYS[2]) > 0 then
    -- Other readers remain: nobody waiting can get in yet.
    return 1
  end
end
if redis.call('DEL', KEYS[3]) == 1 then
  publish(ARGV[2], ARGV[3], ARGV[8])
end
return 1
