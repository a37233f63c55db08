-- Shared by the release scripts: put in front of release.lua and release-rw.lua.

-- What remains of a hold-at-least, in ms, counted from the hold's fencing token, which is
-- at least this server's clock in microseconds when the hold was granted; 0 or less when
-- nothing remains.
local function holdRemainderMs(token, holdAtLeastMs)
  local time = redis.call('TIME')
  local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
  return math.ceil((tonumber(token) + tonumber(holdAtLeastMs) * 1000 - nowUs) / 1000)
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
