"""The store's Lua scripts: each write that must check before it writes (a version, a seat's
credential, a free seat, an existing key) runs as one script, so no other client's command can come
between the check and the write, on a single Redis or a Cluster node alike (every script names keys
of one hash tag: service/store/keys.py).

Each script's comment gives its KEYS and ARGV; its reply is an outcome word the Python side turns
into a result or one of the errors of service/store/records.py. Registered by the store that runs
them (service/store/games.py, service/store/bot_accounts.py).
"""

# --- games (service/store/games.py)

# KEYS: game, events, log, idem (the game key again when the move has no Idempotency-Key)
#       [, account, its notices: the account (bot or player) told of its next turn, on one Redis only]
# ARGV: expected version, state, status, now, ttl, idem ttl, idem value ("" = no Idempotency-Key),
#       log entry, seat, credential, notice ("" = none), notices maxlen, notices ttl, seat to act
#       ("" = none: kept in the hash so a player's list of games sorts theirs first unparsed), event...
#       (credential: the seat's token hash, "bot" for a bot seat's move, "timer" for a move played
#       when the seat's time ran out, or "" = unchecked)
COMMIT_LUA = """
if ARGV[7] ~= '' then
  local prior = redis.call('GET', KEYS[4])
  if prior then return {'replay', prior} end
end
local cur = redis.call('HGET', KEYS[1], 'version')
if not cur then return {'missing', ''} end
if ARGV[10] ~= '' and ARGV[10] ~= 'timer' then
  local seat = 'seat:' .. ARGV[9]
  if ARGV[10] == 'bot' then
    local kind = redis.call('HGET', KEYS[1], seat .. ':kind') or ''
    if string.sub(kind, 1, 4) ~= 'bot:' then return {'seat', ''} end
  elseif redis.call('HGET', KEYS[1], seat .. ':token') ~= ARGV[10] then
    return {'seat', ''}
  end
end
if cur ~= ARGV[1] then return {'conflict', cur} end
local v = tonumber(cur) + 1
redis.call('HSET', KEYS[1], 'version', v, 'state', ARGV[2], 'status', ARGV[3], 'updated_at', ARGV[4],
  'to_act', ARGV[14])
for i = 15, #ARGV do
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', ARGV[i])
end
if ARGV[8] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[8]) end
-- refresh the TTLs when the log list is new, every 16 moves and on finishing: "abandoned" is
-- measured in days, and EXPIRE on every move would be most of the script's work
if v == 1 or v % 16 == 0 or ARGV[3] ~= 'active' then
  local ttl = tonumber(ARGV[5])
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
if ARGV[7] ~= '' then redis.call('SET', KEYS[4], ARGV[7], 'EX', tonumber(ARGV[6])) end
-- the bot account to act next told in the same step (NOTIFY_BOT_LUA's work): one round trip a move
if ARGV[11] ~= '' and #KEYS >= 6 and redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[12], '*', 'e', ARGV[11])
  redis.call('EXPIRE', KEYS[6], tonumber(ARGV[13]))
end
-- consecutive turns a seat let run out: counted on a timer's move, cleared by the seat's own
local timeouts = 0
if ARGV[10] == 'timer' then
  timeouts = redis.call('HINCRBY', KEYS[1], 'seat:' .. ARGV[9] .. ':timeouts', 1)
elseif ARGV[10] ~= '' and ARGV[10] ~= 'bot' then
  redis.call('HDEL', KEYS[1], 'seat:' .. ARGV[9] .. ':timeouts')
end
return {'ok', tostring(v), tostring(timeouts)}
"""

# KEYS: game, events
# ARGV: seat (-1 = first open), token hash, name, now, ttl, reservation (the token hash a reserved
#       seat waits for, or ""), owner (a bot account id, player:<id>, or ""), client seed,
#       start state ("" = none computed), the start's seat to act, n, then n expected client seeds
#       (by seat), then the start events.
# The join that fills the last seat starts the game: Python computed the first deal from the client
# seeds it read; it is written only if those are still the seeds (else 'retry', nothing written).
JOIN_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
local n = tonumber(redis.call('HGET', KEYS[1], 'players'))
local seat = tonumber(ARGV[1])
if seat < 0 then
  for i = 0, n - 1 do
    if redis.call('HGET', KEYS[1], 'seat:' .. i .. ':kind') == 'open' then seat = i; break end
  end
  if seat < 0 then return {'full', ''} end
end
local kind = redis.call('HGET', KEYS[1], 'seat:' .. seat .. ':kind')
local reserved = kind == 'reserved' and ARGV[6] ~= ''
  and redis.call('HGET', KEYS[1], 'seat:' .. seat .. ':reserved') == ARGV[6]
if kind ~= 'open' and not reserved then return {'taken', tostring(seat)} end
local player = string.sub(ARGV[7], 1, 7) == 'player:'
-- one account, one seat: a player always; a bot account in a rated game (service/games/ratings.py)
local once = player
if not player and ARGV[7] ~= '' then
  once = cjson.decode(redis.call('HGET', KEYS[1], 'extra') or '{}').rated == true
end
if once then
  for i = 0, n - 1 do
    if i ~= seat and redis.call('HGET', KEYS[1], 'seat:' .. i .. ':owner') == ARGV[7] then
      return {'twice', tostring(i)}
    end
  end
end
local open = 0
for i = 0, n - 1 do
  local k = redis.call('HGET', KEYS[1], 'seat:' .. i .. ':kind')
  if i ~= seat and (k == 'open' or k == 'reserved') then open = open + 1 end
end
local starting = open == 0 and status == 'waiting'
local expected = tonumber(ARGV[11])
if starting then
  if ARGV[9] == '' or expected ~= n then return {'retry', tostring(seat)} end
  for i = 0, n - 1 do
    local cs = ARGV[8]
    if i ~= seat then cs = redis.call('HGET', KEYS[1], 'seat:' .. i .. ':client_seed') or '' end
    if cs ~= ARGV[11 + 1 + i] then return {'retry', tostring(seat)} end
  end
end
redis.call('HSET', KEYS[1], 'seat:' .. seat .. ':kind', 'human', 'seat:' .. seat .. ':token', ARGV[2],
  'seat:' .. seat .. ':name', ARGV[3], 'seat:' .. seat .. ':reserved', '',
  'seat:' .. seat .. ':owner', ARGV[7], 'seat:' .. seat .. ':client_seed', ARGV[8], 'updated_at', ARGV[4])
local v = redis.call('HGET', KEYS[1], 'version')
-- a player's name stays out of the history (deleting the account removes it from the seat alone)
local shown = ARGV[3]
if player then shown = '' end
redis.call('XADD', KEYS[2], '*', 'v', v, 'e', cjson.encode({type='seat_joined', seat=seat, name=shown}))
local result = 'joined'
if starting then
  redis.call('HSET', KEYS[1], 'status', 'active', 'state', ARGV[9], 'to_act', ARGV[10])
  for j = 11 + expected + 1, #ARGV do redis.call('XADD', KEYS[2], '*', 'v', v, 'e', ARGV[j]) end
  result = 'started'
end
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return {result, tostring(seat)}
"""

# KEYS: game, events
# ARGV: seat, token hash, now, replacement kind for a running game
LEAVE_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
local seat = 'seat:' .. ARGV[1]
if redis.call('HGET', KEYS[1], seat .. ':token') ~= ARGV[2] then return {'seat', status} end
local v = redis.call('HGET', KEYS[1], 'version')
local n = tonumber(ARGV[1])
if status == 'waiting' then
  redis.call('HSET', KEYS[1], seat .. ':kind', 'open', seat .. ':token', '', seat .. ':name', '',
    'updated_at', ARGV[3])
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', cjson.encode({type='seat_left', seat=n}))
  return {'left', status}
end
if status == 'active' then
  redis.call('HSET', KEYS[1], seat .. ':kind', ARGV[4], seat .. ':token', '', 'updated_at', ARGV[3])
  local event = cjson.encode({type='seat_forfeited', seat=n, replaced_by=ARGV[4]})
  redis.call('XADD', KEYS[2], '*', 'v', v, 'e', event)
  return {'replaced', status}
end
return {'over', status}
"""

# KEYS: game, events;  ARGV: seat, replacement kind, reason, now
REPLACE_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'active' then return 0 end
local seat = 'seat:' .. ARGV[1]
redis.call('HSET', KEYS[1], seat .. ':kind', ARGV[2], seat .. ':token', '', 'updated_at', ARGV[4])
redis.call('HDEL', KEYS[1], seat .. ':timeouts')
local v = redis.call('HGET', KEYS[1], 'version')
local event = cjson.encode({type='seat_forfeited', seat=tonumber(ARGV[1]), replaced_by=ARGV[2],
  reason=ARGV[3]})
redis.call('XADD', KEYS[2], '*', 'v', v, 'e', event)
return 1
"""

# KEYS: game, events;  ARGV: ttl, version, field, value, field, value, ..., '--', event...
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local i = 3
while ARGV[i] ~= '--' do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i + 1, #ARGV do redis.call('XADD', KEYS[2], '*', 'v', ARGV[2], 'e', ARGV[j]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1])) end
return 1
"""

# KEYS: a finished game;  ARGV: the id of its rematch.  Sets the link once; returns the link that holds.
CLAIM_REMATCH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return '' end
local current = redis.call('HGET', KEYS[1], 'rematch')
if current and current ~= '' then return current end
redis.call('HSET', KEYS[1], 'rematch', ARGV[1])
return ARGV[1]
"""


# --- bot accounts (service/store/bot_accounts.py)

# KEYS: bot;  ARGV: default idle ttl.  The account's fields, its TTL refreshed (by its own idle_ttl).
LOAD_BOT_LUA = """
local h = redis.call('HGETALL', KEYS[1])
if #h > 0 then
  local ttl = tonumber(redis.call('HGET', KEYS[1], 'idle_ttl') or ARGV[1]) or tonumber(ARGV[1])
  redis.call('EXPIRE', KEYS[1], ttl)
end
return h
"""

# KEYS: bot, its notices stream;  ARGV: notice JSON, max length, ttl
NOTIFY_BOT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
"""

# --- players (service/store/players.py)

# KEYS: the player's games, the player;  ARGV: game, now, max entries.
# 0 when the player is gone, or the index is full (and the game not in it yet): nothing written.
ADD_PLAYER_GAME_LUA = """
local ttl = redis.call('TTL', KEYS[2])
if ttl < 0 then return 0 end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false
  and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""

# KEYS: game;  ARGV: seat, owner.  The seat's name and token removed if ``owner`` still holds it.
FORGET_SEAT_LUA = """
local seat = 'seat:' .. ARGV[1]
if redis.call('HGET', KEYS[1], seat .. ':owner') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], seat .. ':name', '', seat .. ':token', '')
return 1
"""
