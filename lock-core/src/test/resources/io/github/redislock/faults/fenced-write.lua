-- A fenced resource, as a storage service that checks fencing tokens would keep it.
-- KEYS[1] the resource (hash: value, token), KEYS[2] log of accepted writes (list)
-- ARGV[1] fencing token, ARGV[2] value, ARGV[3] writer
-- Accepts the write only when its token is at least the newest token accepted so far.
-- Returns 1 accepted, 0 refused.
local newest = tonumber(redis.call('HGET', KEYS[1], 'token')) or 0
if tonumber(ARGV[1]) < newest then
  return 0
end
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[3] .. ' ' .. ARGV[1])
return 1
