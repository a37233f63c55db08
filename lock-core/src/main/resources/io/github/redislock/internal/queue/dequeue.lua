-- Remove a waiting task of an id only if its due time still matches (a task enqueued
-- again meanwhile is left alone). ARGV[1] id, ARGV[2] due ms
for _, handle in ipairs(waiting_handles(ARGV[1])) do
  local score = waiting_score(handle)
  if score and tonumber(score) == tonumber(ARGV[2]) then
    remove_waiting(ARGV[1], handle)
    forget(handle)
    tidy()
    return 1
  end
end
return 0
