-- The dead letters of one queue.
-- ARGV[1] 'list' (ARGV[2] count: {id, died at us, info, payload, ...} oldest first),
-- 'requeue' (ARGV[2] id: a new waiting task with the dead one's payload, due now, attempts
-- reset, the version its payload was written for kept; ARGV[3] channel, ARGV[4] queue name; returns 1, or 0 when no such dead task) or
-- 'purge' (all; returns how many).
if ARGV[1] == 'list' then
  local result = {}
  local dead = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
  for i = 1, #dead, 2 do
    local id = dead[i]
    table.insert(result, id)
    table.insert(result, dead[i + 1])
    table.insert(result, redis.call('HGET', DEAD_INFO, id) or '{}')
    table.insert(result, redis.call('HGET', DEAD_PAYLOADS, id) or '')
  end
  return result
end
if ARGV[1] == 'requeue' then
  local id = ARGV[2]
  if redis.call('ZREM', DEAD, id) == 0 then
    return 0
  end
  local payload = redis.call('HGET', DEAD_PAYLOADS, id) or ''
  local version = ''
  local decoded, info = pcall(cjson.decode, redis.call('HGET', DEAD_INFO, id) or '{}')
  if decoded and type(info) == 'table' and type(info.version) == 'string' then
    version = info.version
  end
  redis.call('HDEL', DEAD_INFO, id)
  redis.call('HDEL', DEAD_PAYLOADS, id)
  new_task(id, payload, now, '', version)
  redis.call('PUBLISH', ARGV[3], ARGV[4])
  return 1
end
local count = redis.call('ZCARD', DEAD)
redis.call('DEL', DEAD, DEAD_INFO, DEAD_PAYLOADS)
return count
