-- Look at, cancel and pause the waiting tasks of one queue.
-- ARGV[1] 'find' (ARGV[2] id: {id, due ms, payload} of its oldest waiting task, or {}),
-- 'cancel' (ARGV[2] id: removes its waiting tasks; returns {how many}), 'upcoming'
-- (ARGV[2] count: {id, due ms, payload, ...} of tasks not due yet, earliest first; with
-- ARGV[3] preview bytes and ARGV[4] answer budget bytes: {id, due ms, payload preview,
-- payload bytes, ...} then '1' when every one asked for is in, '0' when the budget stopped
-- the list — previews cut in Redis, so a large payload never leaves the server whole),
-- 'pause' / 'resume' (ARGV[2] channel, ARGV[3] queue name: a resume wakes the workers;
-- returns {1} when the state changed, else {0}).
local action = ARGV[1]
local function entry(result, handle, due)
  table.insert(result, task_id(handle) or '')
  table.insert(result, due)
  table.insert(result, redis.call('HGET', TASKS, handle .. ':payload') or '')
end
if action == 'find' then
  local result = {}
  local handle = waiting_handles(ARGV[2])[1]
  if handle then
    entry(result, handle, waiting_score(handle))
  end
  return result
end
if action == 'cancel' then
  local handles = waiting_handles(ARGV[2])
  for _, handle in ipairs(handles) do
    remove_waiting(ARGV[2], handle)
    forget(handle)
  end
  tidy()
  return { #handles }
end
if action == 'upcoming' then
  local result = {}
  local later = redis.call('ZRANGEBYSCORE', READY, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
  if not ARGV[3] then
    for i = 1, #later, 2 do
      entry(result, later[i], later[i + 1])
    end
    return result
  end
  local preview_bytes, budget = tonumber(ARGV[3]), tonumber(ARGV[4])
  local answer = { values = result, used = 0 }
  local complete = '1'
  for i = 1, #later, 2 do
    local handle = later[i]
    local id = task_id(handle) or ''
    local payload_bytes = redis.call('HSTRLEN', TASKS, handle .. ':payload')
    local payload_preview = ''
    if payload_bytes > 0 then
      payload_preview = preview(redis.call('HGET', TASKS, handle .. ':payload'), preview_bytes)
    end
    if not add_within(answer, budget, json_size(id) + json_size(payload_preview) + 64,
        { id, later[i + 1], payload_preview, tostring(payload_bytes) }) then
      complete = '0'
      break
    end
  end
  table.insert(result, complete)
  return result
end
if action == 'pause' then
  return { redis.call('SETNX', PAUSED, '1') }
end
if action == 'resume' then
  local changed = redis.call('DEL', PAUSED)
  if changed == 1 then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
  end
  return { changed }
end
return redis.error_reply('unknown action')
