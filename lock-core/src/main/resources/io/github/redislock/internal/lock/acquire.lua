-- Acquire an exclusive lock, or find who holds it. One round trip; a free lock costs three
-- commands (TIME, GET, SET).
-- KEYS[1] the lock: a string 'token:until:flags:atleast:owner' (see "The exclusive lock's key" in
-- docs/DESIGN.md): the last fencing token issued, the hold's deadline in this server's
-- ms (0 once released), flags ('w' someone waits, 'k' released and kept for its
-- hold-at-least, 'f' lease fixed by an extension), an extension's hold-at-least deadline
-- (ms, or empty) and the holder's owner id. The key outlives the hold by the retention,
-- keeping the last token, so tokens stay monotonic; the hold itself ends at 'until'.
-- ARGV[1] owner id, ARGV[2] lease ms, ARGV[3] retention ms (how long the key outlives
-- the hold), ARGV[4] '1' when the caller waits if it fails, ARGV[5] '1' when other
-- callers of this instance wait for the lock
-- Returns the fencing token (> 0) when the caller holds the lock, otherwise minus the
-- holder's remaining lease in ms.
local time = redis.call('TIME')
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
local nowMs = math.floor(nowUs / 1000)
local lease = tonumber(ARGV[2])
local value = redis.pcall('GET', KEYS[1])
local last = 0
if type(value) == 'table' then
  -- Not a string: the hash of layout 1 (before 2026-11-27), held by an instance not yet
  -- upgraded. Honoured as it is, until its lease ends or its holder deletes it; flagged,
  -- so that its release announces itself to the waiters.
  local owner = redis.call('HGET', KEYS[1], 'owner')
  if owner then
    if ARGV[4] == '1' then
      redis.call('HSET', KEYS[1], 'waiters', '1')
    end
    return -math.max(redis.call('PTTL', KEYS[1]), 1)
  end
  redis.call('DEL', KEYS[1])
elseif value then
  local token, untilMs, flags, atleast, owner = string.match(value, '^(%d+):(%d+):(%a*):(%d*):(.*)$')
  untilMs = tonumber(untilMs)
  if untilMs > nowMs then
    if owner == ARGV[1] and not string.find(flags, 'k', 1, true) then
      -- Already ours: a command re-sent after a reconnect. Same token, fresh lease (kept
      -- fixed when an extension fixed it).
      if not string.find(flags, 'f', 1, true) then
        untilMs = nowMs + lease
        redis.call('SET', KEYS[1], token .. ':' .. string.format('%.0f', untilMs) .. ':' .. flags .. ':' .. atleast .. ':' .. owner,
          'PX', string.format('%.0f', lease + tonumber(ARGV[3])))
      end
      return tonumber(token)
    end
    if ARGV[4] == '1' and not string.find(flags, 'w', 1, true) then
      redis.call('SET', KEYS[1], token .. ':' .. string.format('%.0f', untilMs) .. ':' .. flags .. 'w:' .. atleast .. ':' .. owner, 'KEEPTTL')
    end
    return nowMs - untilMs
  end
  last = tonumber(token)
end
-- Free. The token is at least the server's clock in microseconds, so tokens keep
-- increasing after the key expired or Redis restarted empty, and more than the last one.
local token = nowUs
if last >= token then
  token = last + 1
end
local text = string.format('%.0f', token)
local flags = ''
if ARGV[5] == '1' then
  flags = 'w'
end
redis.call('SET', KEYS[1], text .. ':' .. string.format('%.0f', nowMs + lease) .. ':' .. flags .. '::' .. ARGV[1],
  'PX', string.format('%.0f', lease + tonumber(ARGV[3])))
return token
