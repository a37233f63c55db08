-- Take (remove and return) up to ARGV[1] due tasks, earliest first; with ARGV[2] = '0',
-- only look at them. Atomic: no task is returned to two callers.
-- KEYS[1] ready zset, KEYS[2] payloads hash
-- Returns a flat list: id, due ms, payload, id, due ms, payload, ...
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[1]))
local result = {}
for i = 1, #due, 2 do
  local id = due[i]
  local payload = redis.call('HGET', KEYS[2], id) or ''
  table.insert(result, id)
  table.insert(result, due[i + 1])
  table.insert(result, payload)
  if ARGV[2] == '1' then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
  end
end
return result
