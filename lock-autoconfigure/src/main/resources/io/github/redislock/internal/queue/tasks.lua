-- Look at, cancel and pause the waiting tasks of one queue.
-- ARGV[1] 'find' (ARGV[2] id: {id, due ms, payload} of its oldest waiting task, or {}),
-- 'cancel' (ARGV[2] id: removes its waiting tasks; returns {how many}), 'upcoming'
-- (ARGV[2] count: {id, due ms, payload, ...} of tasks not due yet, earliest first),
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
  for i = 1, #later, 2 do
    entry(result, later[i], later[i + 1])
  end
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
