-- A worker takes due tasks: each moves, in this one script, from ready to in-flight with a
-- visibility deadline and a fresh claim token. In-flight tasks whose deadline passed (their
-- worker died) first go back to ready.
-- KEYS[1] ready, KEYS[2] payloads, KEYS[3] in-flight zset (id -> deadline ms),
-- KEYS[4] claims hash (id -> token), KEYS[5] attempts hash, KEYS[6] claim sequence
-- ARGV[1] max tasks, ARGV[2] visibility ms, ARGV[3] claimer id
-- Returns {ms until the next waiting task is due (-1: none), id, payload, token, attempt, ...}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZADD', KEYS[1], 'NX', now, id)
end
local result = { -1 }
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, id in ipairs(due) do
  local token = ARGV[3] .. ':' .. redis.call('INCR', KEYS[6])
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), id)
  redis.call('HSET', KEYS[4], id, token)
  local attempt = redis.call('HINCRBY', KEYS[5], id, 1)
  table.insert(result, id)
  table.insert(result, redis.call('HGET', KEYS[2], id) or '')
  table.insert(result, token)
  table.insert(result, attempt)
end
local next = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if next[1] then
  result[1] = math.max(0, tonumber(next[2]) - now)
end
return result
