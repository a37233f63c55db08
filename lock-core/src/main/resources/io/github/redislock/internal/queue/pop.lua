-- Take (remove and return) up to ARGV[1] due tasks, earliest first; with ARGV[2] = '0',
-- only look at them. Atomic: no task is returned to two callers. Only the tasks taken are
-- touched: a running or dead task of the same id keeps everything it has.
-- Returns a flat list: id, due ms, payload, id, due ms, payload, ...
local due = due_waiting(tonumber(ARGV[1]))
local result = {}
for i = 1, #due, 2 do
  local handle = due[i]
  local id = task_id(handle) or ''
  table.insert(result, id)
  table.insert(result, due[i + 1])
  table.insert(result, redis.call('HGET', TASKS, handle .. ':payload') or '')
  if ARGV[2] == '1' then
    remove_waiting(id, handle)
    forget(handle)
  end
end
tidy()
return result
