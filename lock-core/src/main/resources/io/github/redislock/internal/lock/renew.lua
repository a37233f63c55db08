-- Renew the leases of many holds at once (the watchdog's tick). All KEYS share one slot.
-- KEYS[i] an exclusive lock (string), a write side (hash) or a zset of holders with deadlines
-- (read side, semaphore permits)
-- ARGV[1] lease ms, ARGV[i + 1] owner id of KEYS[i]
-- Returns a list: 1 where the lease was renewed, 0 where the hold is gone, not ours,
-- released and kept only for its hold-at-least (a kept reader is renamed, see
-- release-rw.lua), or extended to a fixed lease (a hash marked 'fixed').
local lease = tonumber(ARGV[1])
local nowMs = nil
local result = {}
for i, key in ipairs(KEYS) do
  local owner = ARGV[i + 1]
  result[i] = 0
  -- The kind is read off the name, which costs no command: an exclusive lock's key ends
  -- in '}' (a string), the sorted sets in ':read' (readers) or ':permits' (a semaphore),
  -- a write side in ':write' (a hash).
  if string.sub(key, -1) == '}' then
    -- An exclusive lock: a string 'token:until:flags:atleast:owner' (acquire.lua). Not
    -- renewed when kept ('k') or fixed ('f'), or when its deadline has passed.
    if nowMs == nil then
      local time = redis.call('TIME')
      nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    end
    local value = redis.pcall('GET', key)
    if type(value) == 'string' then
      local token, untilMs, flags, atleast, holder = string.match(value, '^(%d+):(%d+):(%a*):(%d*):(.*)$')
      if holder == owner and tonumber(untilMs) > nowMs and not string.find(flags, '[kf]') then
        redis.call('SET', key, token .. ':' .. string.format('%.0f', nowMs + lease) .. ':' .. flags .. ':' .. atleast
          .. ':' .. holder, 'PX', string.format('%.0f', lease + math.max(2 * lease, 60000)))
        result[i] = 1
      end
    end
  elseif string.sub(key, -5) ~= ':read' and string.sub(key, -8) ~= ':permits' then
    -- A hold kept for its hold-at-least after its release ('kept') is never renewed, nor
    -- one whose lease its holder fixed by extending it ('fixed', extend.lua): a renewal
    -- sent before the extension may run after it on a client that does not keep one
    -- connection's order.
    local fields = redis.call('HMGET', key, 'owner', 'kept', 'fixed')
    if fields[1] == owner and not fields[2] and not fields[3] then
      redis.call('PEXPIRE', key, lease)
      result[i] = 1
    end
  else
    if nowMs == nil then
      local time = redis.call('TIME')
      nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    end
    local deadline = redis.call('ZSCORE', key, owner)
    if deadline and tonumber(deadline) > nowMs then
      -- Never shortened: an entry whose holder extended it to a longer lease
      -- (extend-member.lua) keeps it, also against a renewal sent before.
      if tonumber(deadline) < nowMs + lease then
        redis.call('ZADD', key, 'XX', nowMs + lease, owner)
      end
      if redis.call('PTTL', key) < lease then
        redis.call('PEXPIRE', key, lease)
      end
      result[i] = 1
    end
  end
end
return result
