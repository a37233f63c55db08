-- Shared by the release scripts: put in front of release.lua and release-rw.lua.

-- Announce a release on the lock's own channel: sharded (SPUBLISH, delivered only by the
-- node that holds the lock's slot) when the caller asks for it and the server has it
-- (Redis 7 and later), else classic PUBLISH.
local function publish(channel, message, sharded)
  if sharded == '1' and redis.REDIS_VERSION_NUM then
    redis.call('SPUBLISH', channel, message)
  else
    redis.call('PUBLISH', channel, message)
  end
end

-- What remains of a hold-at-least, in ms, counted from the hold's fencing token, which is
-- at least this server's clock in microseconds when the hold was granted; 0 or less when
-- nothing remains.
local function holdRemainderMs(token, holdAtLeastMs)
  local time = redis.call('TIME')
  local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
  return math.ceil((tonumber(token) + tonumber(holdAtLeastMs) * 1000 - nowUs) / 1000)
end

-- What remains of a hold-at-least that an extension recorded (extend.lua, extend-member.lua:
-- a deadline in this server's ms), in ms; 0 or less when nothing remains. A hold extended
-- at server time T with hold-at-least H stays taken after its release until T + H, or
-- until its own hold-at-least from the token ends, whichever is later.
local function atLeastRemainderMs(deadlineMs)
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  return tonumber(deadlineMs) - nowMs
end

-- Mark the fencing counter 'released by this token' (negated; acquire reads its absolute
-- value), only while it still holds this token, so it never moves backwards; or when it is
-- gone (a hold longer than its retention): we held the lock, so no later token was issued.
-- Nothing to mark without the token ('0').
local function markReleased(fenceKey, token, retentionMs)
  if token ~= '0' then
    local fence = redis.call('GET', fenceKey)
    if fence == token then
      redis.call('SET', fenceKey, '-' .. token, 'KEEPTTL')
    elseif fence == false then
      redis.call('SET', fenceKey, '-' .. token, 'PX', retentionMs)
    end
  end
end
