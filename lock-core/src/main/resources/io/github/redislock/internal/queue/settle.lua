-- Settle claimed tasks, each only if its claim token still matches (a worker that lost its
-- claim cannot touch a task someone else now runs).
-- ARGV[1] action: 'ack' (done), 'extend' (push the deadline out by ARGV[2] ms), 'retry'
-- (waiting again, due in ARGV[2] ms), 'dead' (to the dead letters, ARGV[2] = info JSON),
-- 'release' (waiting again, due now, attempt not counted), 'defer' (waiting again, attempt
-- not counted: its payload is for a later version of the method; ARGV[2] 'base:cap', ms: due
-- after base, doubled with each hand-back of the task, at most cap); ARGV[3] max dead, ARGV[4] max
-- dead age ms, ARGV[5] notification channel, ARGV[6] queue name; then ARGV[7..] pairs of
-- handle, token.
-- Returns a list: 1 where settled, 0 where the claim no longer matched.
-- A settle that runs again (the client sent it again after its answer was lost in a
-- reconnect) answers 1 again and changes nothing: every settle of the last minute (at most
-- the last 10,000) is remembered by handle and token. (A renewal that runs again renews
-- again, which is harmless.)
local action = ARGV[1]
local result = {}
local wake = false
local settled = 0
for i = 7, #ARGV, 2 do
  local handle = ARGV[i]
  local token = ARGV[i + 1]
  if redis.call('HGET', CLAIMS, handle) ~= token then
    if action ~= 'extend' and redis.call('ZSCORE', SETTLED, handle .. ' ' .. token) then
      table.insert(result, 1)
    else
      table.insert(result, 0)
    end
  else
    table.insert(result, 1)
    if action == 'extend' then
      redis.call('ZADD', INFLIGHT, 'XX', now + tonumber(ARGV[2]), handle)
    else
      redis.call('ZADD', SETTLED, now, handle .. ' ' .. token)
      settled = settled + 1
      local id = task_id(handle)
      end_run(id, handle)
      if redis.call('HEXISTS', WAITING, id) == 1 then
        -- A task of the same id waited for this run to settle.
        wake = true
      end
      if action == 'ack' then
        -- Succeeded: its dedup window counts from now too.
        mark_dedup(id, handle)
        forget(handle)
      elseif action == 'retry' then
        add_waiting(id, handle, now + tonumber(ARGV[2]))
        -- Its backoff may end before an idle worker (of any instance) looks again.
        wake = wakes_idle(now + tonumber(ARGV[2])) or wake
      elseif action == 'release' then
        redis.call('HINCRBY', TASKS, handle .. ':attempts', -1)
        add_waiting(id, handle, now)
        wake = true
      elseif action == 'defer' then
        -- Due again after base ms, doubled with each hand-back of the task, at most cap ms:
        -- earlier instances that keep meeting it (a rollback) claim it ever less often.
        redis.call('HINCRBY', TASKS, handle .. ':attempts', -1)
        local deferred = redis.call('HINCRBY', TASKS, handle .. ':deferred', 1)
        local base, cap = string.match(ARGV[2], '^(%d+):(%d+)$')
        local delay = math.min(tonumber(base) * 2 ^ math.min(deferred - 1, 30), tonumber(cap))
        add_waiting(id, handle, now + delay)
        wake = wakes_idle(now + delay) or wake
      elseif action == 'dead' then
        -- Failed for good: it keeps no one from trying again.
        if redis.call('HGET', TASKS, handle .. ':dedup') then
          redis.call('ZREM', DEDUP, id)
        end
        bury(id, handle, ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
      end
    end
  end
end
if settled > 0 then
  redis.call('ZREMRANGEBYSCORE', SETTLED, '-inf', now - 60000)
  local excess = redis.call('ZCARD', SETTLED) - 10000
  if excess > 0 then
    redis.call('ZREMRANGEBYRANK', SETTLED, 0, excess - 1)
  end
  redis.call('PEXPIRE', SETTLED, 60000)
end
tidy()
if wake then
  redis.call('PUBLISH', ARGV[5], ARGV[6])
end
return result
