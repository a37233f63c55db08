-- Shared by every queue script (prepended to each when it is loaded; static text, never
-- built from input). Key layout in QueueKeys: every script gets the same twelve keys.
-- A task is one enqueued call with a handle of its own; tasks that share an id share
-- nothing but the id.
-- IDLE is present while some worker found nothing to claim and waits for a wake-up; its value
-- is the latest time (epoch ms) at which such a worker looks again by itself.
-- DEDUP: id -> until when (epoch ms) a task of it enqueued with a dedup window keeps the id
-- from being enqueued again.
-- SETTLED: 'handle token' -> when (ms) of the settles of the last minute (at most 10,000),
-- so that a settle the client sends again answers as its first run did.
-- PARKED: handle -> due ms of the due tasks whose id runs: set aside by a claim, so that the
-- claims that follow do not page past them, and back in READY when that run ends. They are
-- waiting tasks like the others (size, top, pop, dequeue, find see them).
local READY, WAITING, TASKS, INFLIGHT, RUNNING, CLAIMS, SEQ, DEAD, DEAD_INFO, DEAD_PAYLOADS, PAUSED, IDLE, DEDUP,
  SETTLED, PARKED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11], KEYS[12], KEYS[13], KEYS[14], KEYS[15]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- A new handle: larger than every handle given before, also after the counter was
-- deleted with the last task (at least the server clock in microseconds).
local function new_handle()
  local handle = redis.call('INCR', SEQ)
  if handle < now_us then
    handle = now_us
    redis.call('SET', SEQ, string.format('%.0f', handle))
  end
  return string.format('%.0f', handle)
end

-- WAITING: id -> the handles of the waiting tasks of that id, oldest first, space-separated.
local function waiting_handles(id)
  local handles = {}
  local list = redis.call('HGET', WAITING, id)
  if list then
    for handle in string.gmatch(list, '%S+') do
      table.insert(handles, handle)
    end
  end
  return handles
end

local function add_waiting(id, handle, due)
  local list = redis.call('HGET', WAITING, id)
  redis.call('HSET', WAITING, id, list and (list .. ' ' .. handle) or handle)
  redis.call('ZADD', READY, due, handle)
end

local function remove_waiting(id, handle)
  redis.call('ZREM', READY, handle)
  redis.call('ZREM', PARKED, handle)
  local kept = {}
  for _, other in ipairs(waiting_handles(id)) do
    if other ~= handle then
      table.insert(kept, other)
    end
  end
  if #kept == 0 then
    redis.call('HDEL', WAITING, id)
  else
    redis.call('HSET', WAITING, id, table.concat(kept, ' '))
  end
end

-- context: the caller's logging context (JSON), stored only when there is one.
-- version: the version of the method the payload was written for, 'version:signature digest'
-- (a @QueuedTask call's; empty for a payload of the plain API), stored only when given.
local function new_task(id, payload, due, context, version)
  local handle = new_handle()
  redis.call('HSET', TASKS, handle .. ':id', id, handle .. ':payload', payload)
  if context and context ~= '' then
    redis.call('HSET', TASKS, handle .. ':context', context)
  end
  if version and version ~= '' then
    redis.call('HSET', TASKS, handle .. ':version', version)
  end
  add_waiting(id, handle, due)
  return handle
end

local function task_id(handle)
  return redis.call('HGET', TASKS, handle .. ':id')
end

-- Delete a task's own fields: nothing of another task is touched.
local function forget(handle)
  redis.call('HDEL', TASKS, handle .. ':id', handle .. ':payload', handle .. ':attempts', handle .. ':context',
    handle .. ':dedup', handle .. ':call', handle .. ':version', handle .. ':deferred')
end

-- A task with a dedup window (handle:dedup, ms) marks its id until that long from now (when
-- it starts, and again when it succeeds). Marks that passed go; the key expires with the
-- last one.
local function mark_dedup(id, handle)
  local window = tonumber(redis.call('HGET', TASKS, handle .. ':dedup') or '0')
  if window > 0 then
    redis.call('ZADD', DEDUP, now + window, id)
    if redis.call('PTTL', DEDUP) < window then
      redis.call('PEXPIRE', DEDUP, window)
    end
  end
end

-- Whether an id is kept from being enqueued by a dedup window: it runs, or its mark is
-- still on. Up to 100 marks that passed go each time (bounded work per call).
local function deduplicated(id)
  local passed = redis.call('ZRANGEBYSCORE', DEDUP, '-inf', now, 'LIMIT', 0, 100)
  if #passed > 0 then
    redis.call('ZREM', DEDUP, unpack(passed))
  end
  if redis.call('HEXISTS', RUNNING, id) == 1 then
    return true
  end
  local until_ms = redis.call('ZSCORE', DEDUP, id)
  return until_ms ~= false and tonumber(until_ms) > now
end

-- The handle counter goes when no task waits or runs, and with it any field left in TASKS (a
-- field an earlier release does not know, such as handle:version, stays when an instance of
-- that release forgets a task during a rolling upgrade).
local function tidy()
  if redis.call('ZCARD', READY) == 0 and redis.call('ZCARD', INFLIGHT) == 0 and redis.call('ZCARD', PARKED) == 0 then
    redis.call('DEL', SEQ, TASKS)
  end
end

-- The due time of a waiting task (ready or parked), or false.
local function waiting_score(handle)
  return redis.call('ZSCORE', READY, handle) or redis.call('ZSCORE', PARKED, handle)
end

-- The waiting tasks of an id that were parked behind its run are ready again.
local function unpark(id)
  for _, waiting in ipairs(waiting_handles(id)) do
    local due = redis.call('ZSCORE', PARKED, waiting)
    if due then
      redis.call('ZREM', PARKED, waiting)
      redis.call('ZADD', READY, due, waiting)
    end
  end
end

-- A claimed task stops running: its claim and its mark on the id go, and the tasks of the
-- id parked behind it are ready again.
local function end_run(id, handle)
  redis.call('ZREM', INFLIGHT, handle)
  redis.call('HDEL', CLAIMS, handle)
  if redis.call('HGET', RUNNING, id) == handle then
    redis.call('HDEL', RUNNING, id)
    unpark(id)
  end
end

-- Up to n due waiting tasks, ready or parked, earliest first: a flat list of handle, due.
local function due_waiting(n)
  local ready = redis.call('ZRANGEBYSCORE', READY, '-inf', now, 'WITHSCORES', 'LIMIT', 0, n)
  local parked = redis.call('ZRANGEBYSCORE', PARKED, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, n)
  local result = {}
  local r, p = 1, 1
  while #result < 2 * n and (r <= #ready or p <= #parked) do
    if p > #parked or (r <= #ready and tonumber(ready[r + 1]) <= tonumber(parked[p + 1])) then
      table.insert(result, ready[r])
      table.insert(result, ready[r + 1])
      r = r + 2
    else
      table.insert(result, parked[p])
      table.insert(result, parked[p + 1])
      p = p + 2
    end
  end
  return result
end

-- Dead letters: DEAD id -> died at (server clock, microseconds, so deaths keep their
-- order), DEAD_INFO id -> JSON, DEAD_PAYLOADS id -> payload. At most one per id.
local function drop_dead(ids)
  for _, id in ipairs(ids) do
    redis.call('ZREM', DEAD, id)
    redis.call('HDEL', DEAD_INFO, id)
    redis.call('HDEL', DEAD_PAYLOADS, id)
  end
end

-- Bounded in age and number, the oldest go first; a negative max skips the trim.
local function trim_dead(max, max_age_ms)
  if max < 0 then
    return
  end
  drop_dead(redis.call('ZRANGEBYSCORE', DEAD, '-inf', string.format('%.0f', now_us - max_age_ms * 1000),
    'LIMIT', 0, 1000))
  local excess = redis.call('ZCARD', DEAD) - max
  if excess > 0 then
    drop_dead(redis.call('ZRANGE', DEAD, 0, excess - 1))
  end
end

-- A task (not waiting, not running) goes to the dead letters, replacing an older death of
-- its id. The dead keys expire max age after the newest death, so they go even when no
-- worker is left to trim them.
local function bury(id, handle, info, max, max_age_ms)
  redis.call('ZADD', DEAD, string.format('%.0f', now_us), id)
  redis.call('HSET', DEAD_INFO, id, info)
  redis.call('HSET', DEAD_PAYLOADS, id, redis.call('HGET', TASKS, handle .. ':payload') or '')
  forget(handle)
  trim_dead(max, max_age_ms)
  for _, key in ipairs({ DEAD, DEAD_INFO, DEAD_PAYLOADS }) do
    redis.call('PEXPIRE', key, max_age_ms)
  end
end

-- Whether a task that falls due at `due` (epoch ms) is to wake the idle workers: one due now
-- while any idles, or one due before the latest of them looks again by itself (it would
-- sleep past it). The idle mark goes: the workers woken set it again when they find nothing.
local function wakes_idle(due)
  local idle_until = redis.call('GET', IDLE)
  if not idle_until then
    return false
  end
  -- (A mark without a time, '1', was left by an earlier version: due-now tasks only.)
  local until_ms = tonumber(idle_until) or 0
  if due <= now or (until_ms > 1 and due < until_ms) then
    redis.call('DEL', IDLE)
    return true
  end
  return false
end

-- How many bytes a text takes as a JSON string in an answer: a control character is
-- written as \u00XX (6 bytes), a quote or a backslash with a backslash before it.
local function json_size(text)
  local _, controls = string.gsub(text, '%c', '')
  local _, escaped = string.gsub(text, '["\\]', '')
  return #text + 5 * controls + escaped
end

-- Add one entry's values to an operators' list answer ({ values = {...}, used = bytes })
-- unless that takes it past budget bytes; the first entry always goes in. Returns whether it
-- went in.
local function add_within(answer, budget, size, values)
  if #answer.values > 0 and answer.used + size > budget then
    return false
  end
  answer.used = answer.used + size
  for _, value in ipairs(values) do
    table.insert(answer.values, value)
  end
  return true
end

-- At most max_bytes of the start of a text, cut at a UTF-8 character boundary (a byte
-- 10xxxxxx continues a character), for the operators' lists.
local function preview(text, max_bytes)
  if #text <= max_bytes then
    return text
  end
  local cut = max_bytes
  while cut > 0 do
    local next_byte = string.byte(text, cut + 1)
    if next_byte < 0x80 or next_byte >= 0xC0 then
      break
    end
    cut = cut - 1
  end
  return string.sub(text, 1, cut)
end
