-- A worker takes due tasks: each moves, in this one script, from waiting to in-flight with a
-- visibility deadline and a fresh claim token, and its attempt is counted. A task whose id
-- runs already is left waiting: one id never runs under two live claims.
-- First, in-flight tasks whose deadline passed (their worker died or was cut off) come back
-- as waiting tasks of their own, or, when they were claimed max-attempts times already, go
-- to the dead letters. Aged dead letters are trimmed. A paused queue gives out no task.
-- The claiming instance never gets back a task whose id it still runs: its own claims that it
-- still runs and holds are not expired here (it renews them itself: a late renewal of a claim
-- nobody took still holds), and a due task of an id it runs waits for that run to end, as a
-- task of an id running elsewhere does. Another instance still recovers such an expired claim.
-- ARGV[1] max tasks, ARGV[2] visibility ms, ARGV[3] claimer id, ARGV[4] max attempts,
-- ARGV[5] max dead, ARGV[6] max dead age ms, ARGV[7] how long a worker that finds nothing waits
-- at most before it looks again, ms (with a margin), ARGV[8] n, then n pairs of handle and
-- token of the claims the claimer still runs and holds, then the ids the claimer still runs
-- Returns {ms until the next waiting task is due (-1: none), n, n ids sent to the dead
-- letters, then per task: id, handle, payload, token, attempt, context ('' when none),
-- version ('' when none recorded)}
-- KEYS[16] this call's own key: a claim the client sends again (its answer was lost in a
-- reconnect) finds what its first run did there and answers with the tasks it claimed (the
-- ones still claimed by it), instead of claiming others and leaving those to lapse, and with
-- the ids it sent to the dead letters (the caller logs them and publishes their events from
-- this answer: the first one was lost).
local CALL = KEYS[16]
if CALL then
  local earlier = redis.call('GET', CALL)
  if earlier then
    -- JSON: {claimed = {handle, token, ...}, buried = {id, ...}}; a value of an earlier
    -- version holds 'handle token handle token ...'.
    local decoded, first = pcall(cjson.decode, earlier)
    local pairs_claimed, buried_first = {}, {}
    if decoded and type(first) == 'table' then
      pairs_claimed = first.claimed or {}
      buried_first = first.buried or {}
    else
      for handle, token in string.gmatch(earlier, '(%S+) (%S+)') do
        table.insert(pairs_claimed, handle)
        table.insert(pairs_claimed, token)
      end
    end
    local again = { 0, #buried_first }
    for _, id in ipairs(buried_first) do
      table.insert(again, id)
    end
    for i = 1, #pairs_claimed, 2 do
      local handle, token = pairs_claimed[i], pairs_claimed[i + 1]
      local id = task_id(handle)
      if id and redis.call('HGET', CLAIMS, handle) == token then
        for _, value in ipairs({ id, handle, redis.call('HGET', TASKS, handle .. ':payload') or '', token,
            tonumber(redis.call('HGET', TASKS, handle .. ':attempts') or '1'),
            redis.call('HGET', TASKS, handle .. ':context') or '',
            redis.call('HGET', TASKS, handle .. ':version') or '' }) do
          table.insert(again, value)
        end
      end
    end
    return again
  end
end
local max_attempts = tonumber(ARGV[4])
local max_dead = tonumber(ARGV[5])
local max_dead_age = tonumber(ARGV[6])
local held_here = {}
local held_count = tonumber(ARGV[8] or '0')
for i = 9, 8 + 2 * held_count, 2 do
  held_here[ARGV[i]] = ARGV[i + 1]
end
local running_here = {}
for i = 9 + 2 * held_count, #ARGV do
  running_here[ARGV[i]] = true
end
local buried = {}
for _, handle in ipairs(redis.call('ZRANGEBYSCORE', INFLIGHT, '-inf', now, 'LIMIT', 0, 1000)) do
  local id = task_id(handle)
  if held_here[handle] and held_here[handle] == redis.call('HGET', CLAIMS, handle) then
    -- Still run and renewed by this claimer.
  elseif id then
    end_run(id, handle)
    local attempts = tonumber(redis.call('HGET', TASKS, handle .. ':attempts') or '0')
    if attempts >= max_attempts then
      local info = cjson.encode({ attempts = attempts, error = 'Its worker never reported back after ' .. attempts
        .. ' attempt(s) (killed, halted, or cut off from Redis longer than the visibility timeout)',
        version = redis.call('HGET', TASKS, handle .. ':version') or nil })
      if redis.call('HGET', TASKS, handle .. ':dedup') then
        redis.call('ZREM', DEDUP, id)
      end
      bury(id, handle, info, max_dead, max_dead_age)
      table.insert(buried, id)
    else
      add_waiting(id, handle, now)
    end
  else
    redis.call('ZREM', INFLIGHT, handle)
    redis.call('HDEL', CLAIMS, handle)
  end
end
trim_dead(max_dead, max_dead_age)

-- Parked tasks whose id no longer runs are ready again (a run settled by an instance with
-- scripts from before parking, say): a few, oldest first, every claim.
for _, handle in ipairs(redis.call('ZRANGE', PARKED, 0, 9)) do
  local id = task_id(handle)
  if not id then
    redis.call('ZREM', PARKED, handle)
  elseif redis.call('HEXISTS', RUNNING, id) == 0 then
    unpark(id)
  end
end

-- A paused queue gives out nothing (its expired claims still come back above).
local max = tonumber(ARGV[1])
if redis.call('EXISTS', PAUSED) == 1 then
  max = 0
end
local claimed = {}
local claimed_pairs = {}
local taken = 0
local skipped = 0
while taken < max and skipped < 1000 do
  local page = max - taken + 16
  local due = redis.call('ZRANGEBYSCORE', READY, '-inf', now, 'LIMIT', skipped, page)
  for _, handle in ipairs(due) do
    if taken >= max then
      break
    end
    local id = task_id(handle)
    if not id then
      redis.call('ZREM', READY, handle)
    elseif redis.call('HEXISTS', RUNNING, id) == 1 then
      -- It waits for its id's run: parked, out of the way of the due tasks after it, until
      -- that run ends.
      redis.call('ZADD', PARKED, redis.call('ZSCORE', READY, handle), handle)
      redis.call('ZREM', READY, handle)
    elseif running_here[id] then
      skipped = skipped + 1
    else
      local token = ARGV[3] .. ':' .. string.format('%.0f', now_us)
      remove_waiting(id, handle)
      redis.call('ZADD', INFLIGHT, now + tonumber(ARGV[2]), handle)
      redis.call('HSET', RUNNING, id, handle)
      redis.call('HSET', CLAIMS, handle, token)
      local attempt = redis.call('HINCRBY', TASKS, handle .. ':attempts', 1)
      -- No longer waiting: an enqueue sent again after this would enqueue anew.
      redis.call('HDEL', TASKS, handle .. ':call')
      mark_dedup(id, handle)
      for _, value in ipairs({ id, handle, redis.call('HGET', TASKS, handle .. ':payload') or '', token, attempt,
          redis.call('HGET', TASKS, handle .. ':context') or '', redis.call('HGET', TASKS, handle .. ':version') or '' }) do
        table.insert(claimed, value)
      end
      taken = taken + 1
      table.insert(claimed_pairs, handle)
      table.insert(claimed_pairs, token)
    end
  end
  if #due < page then
    break
  end
end

local next_due = -1
if max == 0 then
  -- Paused: woken by the resume.
  next_due = -1
elseif taken >= max and redis.call('ZCOUNT', READY, '-inf', now) > skipped then
  next_due = 0
else
  local later = redis.call('ZRANGEBYSCORE', READY, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if later[1] then
    next_due = tonumber(later[2]) - now
  end
  -- A claim in flight whose worker may have died is taken back by the first look after its
  -- deadline: an idle worker looks then too (live claims are renewed before it, and the
  -- look finds nothing), so a dead worker's task does not wait for the next idle look.
  -- (Claims whose deadline passed and are still here are the claimer's own, which it runs
  -- and renews itself: not waited for.)
  local flying = redis.call('ZRANGEBYSCORE', INFLIGHT, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if flying[1] then
    local expires = tonumber(flying[2]) - now + 1
    if next_due < 0 or expires < next_due then
      next_due = expires
    end
  end
end
if taken == 0 then
  -- This worker waits for a wake-up, or until its next look: when the next waiting task is
  -- due, ARGV[7] ms at the latest. The next enqueue of a task due before that is to send
  -- one. The mark keeps the latest such look of all idle workers, and lives until then.
  local idle_ms = tonumber(ARGV[7])
  local look = now + idle_ms
  if next_due >= 0 and next_due < idle_ms then
    look = now + next_due
  end
  local marked = tonumber(redis.call('GET', IDLE) or '0') or 0
  if marked < look then
    redis.call('SET', IDLE, string.format('%.0f', look), 'PX', math.max(1, look - now))
  end
end
if CALL and (taken > 0 or #buried > 0) then
  redis.call('SET', CALL, cjson.encode({ claimed = claimed_pairs, buried = buried }), 'PX', 60000)
end
tidy()
local result = { next_due, #buried }
for _, id in ipairs(buried) do
  table.insert(result, id)
end
for _, value in ipairs(claimed) do
  table.insert(result, value)
end
return result
