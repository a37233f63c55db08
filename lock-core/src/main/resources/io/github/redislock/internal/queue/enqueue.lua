-- Enqueue a task, deduplicated by id among the waiting tasks (a running task of the id does
-- not count: the new one waits until that run settles). One round trip.
-- ARGV[1] id, ARGV[2] payload, ARGV[3] delay ms, ARGV[4] '1' to replace the newest waiting
-- task of the id, ARGV[5] notification channel, ARGV[6] queue name, ARGV[7] the caller's
-- logging context (JSON; empty: none), ARGV[8] when it is due in epoch ms (empty: after
-- the delay; a time in the past: now), ARGV[9] the dedup window in ms (absent or 0: none)
-- Returns 1 when enqueued or replaced, 0 when a task of the id was waiting and is kept, or
-- (with a dedup window) a task of the id runs or ran within its window.
-- ARGV[10] the call's own id: the call sent again (its answer was lost in a reconnect) finds
-- the task it enqueued (handle:call) still waiting, and answers 1 again without a change.
-- ARGV[11] the version of the method the payload was written for ('version:digest'; absent
-- or empty: none recorded).
local id = ARGV[1]
local call = ARGV[10]
if call and call ~= '' then
  for _, handle in ipairs(waiting_handles(id)) do
    if redis.call('HGET', TASKS, handle .. ':call') == call then
      return 1
    end
  end
end
local window = tonumber(ARGV[9] or '0') or 0
if window > 0 and deduplicated(id) then
  return 0
end
local waiting = waiting_handles(id)
if #waiting > 0 then
  if ARGV[4] ~= '1' then
    return 0
  end
  local replaced = waiting[#waiting]
  remove_waiting(id, replaced)
  forget(replaced)
end
local due = now + tonumber(ARGV[3])
if ARGV[8] and ARGV[8] ~= '' then
  due = math.max(now, tonumber(ARGV[8]))
end
local handle = new_task(id, ARGV[2], due, ARGV[7], ARGV[11])
if call and call ~= '' then
  redis.call('HSET', TASKS, handle .. ':call', call)
end
if window > 0 then
  redis.call('HSET', TASKS, handle .. ':dedup', window)
end
if wakes_idle(due) then
  -- Wake idle workers at once (for a delayed task: so that they sleep until it is due).
  -- Busy workers claim again as each task ends, so while none idles an enqueue sends no
  -- message; delayed tasks are found when they fall due.
  redis.call('PUBLISH', ARGV[5], ARGV[6])
end
return 1
