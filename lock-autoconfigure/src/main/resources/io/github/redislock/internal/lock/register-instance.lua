-- Register (or refresh) a lock template's instance record. KEYS[1] the record;
-- ARGV[1] ttl ms, ARGV[2] host, ARGV[3] process id, ARGV[4] application name.
redis.call('HSET', KEYS[1], 'host', ARGV[2], 'pid', ARGV[3], 'application', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
