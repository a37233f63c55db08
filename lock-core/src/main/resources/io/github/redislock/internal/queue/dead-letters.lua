-- The dead letters of one queue.
-- ARGV[1] 'list' (ARGV[2] count: {id, died at us, info, payload, ...} oldest first),
-- 'previews' (ARGV[2] count, ARGV[3] preview bytes, ARGV[4] answer budget bytes: oldest
-- first, {id, died at us, attempts, error preview, error bytes, payload preview, payload bytes,
-- ...} then '1' when every one asked for is in, '0' when the budget stopped the list; the
-- previews are cut in Redis, so a large payload or error never leaves the server whole),
-- 'get' (ARGV[2] id: {id, died at us, info, payload} of that dead task, or {}),
-- 'delete' (ARGV[2] id: removes that dead task; returns 1, or 0 when there is none),
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
if ARGV[1] == 'previews' then
  local preview_bytes, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
  local answer = { values = {}, used = 0 }
  local complete = '1'
  local dead = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
  for i = 1, #dead, 2 do
    local id = dead[i]
    local attempts, error = 0, ''
    local decoded, info = pcall(cjson.decode, redis.call('HGET', DEAD_INFO, id) or '{}')
    if decoded and type(info) == 'table' then
      attempts = tonumber(info.attempts) or 0
      error = (type(info.error) == 'string') and info.error or ''
    end
    local error_preview = preview(error, preview_bytes)
    local payload_bytes = redis.call('HSTRLEN', DEAD_PAYLOADS, id)
    local payload_preview = ''
    if payload_bytes > 0 then
      payload_preview = preview(redis.call('HGET', DEAD_PAYLOADS, id), preview_bytes)
    end
    if not add_within(answer, budget, json_size(id) + json_size(error_preview) + json_size(payload_preview) + 64,
        { id, dead[i + 1], tostring(attempts), error_preview, tostring(#error), payload_preview,
          tostring(payload_bytes) }) then
      complete = '0'
      break
    end
  end
  table.insert(answer.values, complete)
  return answer.values
end
if ARGV[1] == 'get' then
  local id = ARGV[2]
  local died = redis.call('ZSCORE', DEAD, id)
  if not died then
    return {}
  end
  return { id, died, redis.call('HGET', DEAD_INFO, id) or '{}', redis.call('HGET', DEAD_PAYLOADS, id) or '' }
end
if ARGV[1] == 'delete' then
  if redis.call('ZSCORE', DEAD, ARGV[2]) == false then
    return 0
  end
  drop_dead({ ARGV[2] })
  return 1
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
