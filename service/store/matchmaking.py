"""Matchmaking in Redis: tickets, the waiting index, parties and the claims of tables being opened.

Every key shares the hash tag ``{mm}``: on a Redis Cluster they sit in one slot, so a claim (several
tickets taken for one table) is one Lua script, atomic. A ticket is taken by a table only from
``waiting``, so two matchers racing never put one ticket in two games: the second claim finds it
``matching`` and is refused whole. A claim is written with the table it opens (its game id, seats,
tickets) before the game is created; a matcher that dies between the two leaves the claim, which any
matcher finishes after :data:`CLAIM_LEASE` seconds (the game's creation is idempotent on its id), so no
ticket is lost.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from service.store.connection import RegisteredScript, StorePart

PREFIX = "atout:mm:{mm}:"
WAITING = PREFIX + "waiting"  # ZSET ticket id -> created_at: every waiting ticket, oldest first
CLAIMS = PREFIX + "claims"  # ZSET claim id -> claimed_at: tables being opened
CLAIM_LEASE = 30.0
"""Seconds a claim stays its matcher's before another finishes it (a matcher's pass takes far less)."""


def ticket_key(tid: str) -> str:
    return f"{PREFIX}ticket:{tid}"


def held_key(account: str, kind: str) -> str:
    return f"{PREFIX}held:{account}:{kind}"


def party_key(pid: str) -> str:
    return f"{PREFIX}party:{pid}"


def met_key(account: str) -> str:
    return f"{PREFIX}met:{account}"


def claim_key(cid: str) -> str:
    return f"{PREFIX}claim:{cid}"


# KEYS: waiting, held (for the owner and kind), ticket; ARGV: ticket json, id, created_at, ttl, cap
QUEUE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return {0, redis.call('GET', KEYS[2])} end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return {-1, ''} end
redis.call('SET', KEYS[3], ARGV[1], 'EX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return {1, ARGV[2]}
"""

# KEYS: waiting, claims, claim, ticket keys...; ARGV: claim json, claim id, now, game id, ticket ids...
CLAIM = """
local n = #KEYS - 3
local tickets = {}
for i = 1, n do
  local raw = redis.call('GET', KEYS[3 + i])
  if not raw then return 0 end
  local t = cjson.decode(raw)
  if t['status'] ~= 'waiting' then return 0 end
  tickets[i] = t
end
for i = 1, n do
  tickets[i]['status'] = 'matching'
  tickets[i]['game_id'] = ARGV[4]
  redis.call('SET', KEYS[3 + i], cjson.encode(tickets[i]), 'KEEPTTL')
  redis.call('ZREM', KEYS[1], ARGV[4 + i])
end
redis.call('SET', KEYS[3], ARGV[1], 'EX', 86400)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return 1
"""

# KEYS: waiting, held, ticket; ARGV: the new status (cancelled, expired), ticket id
END_WAITING = """
local raw = redis.call('GET', KEYS[3])
if not raw then return '' end
local t = cjson.decode(raw)
if t['status'] ~= 'waiting' then return 'not:' .. t['status'] end
t['status'] = ARGV[1]
redis.call('SET', KEYS[3], cjson.encode(t), 'KEEPTTL')
redis.call('ZREM', KEYS[1], ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return ARGV[1]
"""

# KEYS: party; ARGV: account, the most members, the invite code's hash
JOIN_PARTY = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 'gone' end
local p = cjson.decode(raw)
if p['invite_hash'] ~= ARGV[3] then return 'code' end
for _, m in ipairs(p['members']) do if m == ARGV[1] then return 'member' end end
if #p['members'] >= tonumber(ARGV[2]) then return 'full' end
table.insert(p['members'], ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(p), 'KEEPTTL')
return 'ok'
"""


class MatchmakingStore(StorePart):
    """Async access to tickets, parties and claims (see the module's docstring)."""

    _queue = RegisteredScript(QUEUE)
    _claim = RegisteredScript(CLAIM)
    _end_waiting = RegisteredScript(END_WAITING)
    _join_party = RegisteredScript(JOIN_PARTY)

    async def queue(self, ticket: dict[str, Any], ttl: int, cap: int) -> tuple[int, str]:
        """Write a waiting ``ticket`` unless its owner holds one for its kind (0, that ticket's id) or
        ``cap`` tickets wait already (-1); (1, its id) when queued."""
        tid, owner, kind = ticket["ticket_id"], ticket["members"][0], ticket["kind"]
        keys = [WAITING, held_key(owner, kind), ticket_key(tid)]
        args = [json.dumps(ticket), tid, repr(ticket["created_at"]), str(ttl), str(cap)]
        done, held = await self._queue(keys=keys, args=args)
        return int(done), str(held)

    async def ticket(self, tid: str) -> dict[str, Any] | None:
        raw = await self.r.get(ticket_key(tid))
        return None if raw is None else dict(json.loads(raw))

    async def end_waiting(self, ticket: dict[str, Any], status: str) -> str:
        """Cancel or expire a waiting ticket: the new status, ``not:<status>`` when it was no longer
        waiting, '' when it is gone."""
        keys = [WAITING, held_key(ticket["members"][0], ticket["kind"]), ticket_key(ticket["ticket_id"])]
        return str(await self._end_waiting(keys=keys, args=[status, ticket["ticket_id"]]))

    async def waiting(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` oldest waiting tickets (bounded: one matcher pass reads at most this many)."""
        ids = await self.r.zrange(WAITING, 0, limit - 1)
        if not ids:
            return []
        raws = await self.r.mget([ticket_key(tid) for tid in ids])
        return [json.loads(raw) for raw in raws if raw is not None]

    async def waiting_count(self) -> int:
        return int(await self.r.zcard(WAITING))

    async def drop_missing(self, tid: str) -> None:
        """A waiting index entry whose ticket expired with its key."""
        await self.r.zrem(WAITING, tid)

    async def claim(self, table: dict[str, Any]) -> str | None:
        """Take the tickets of ``table`` (all ``waiting``, else none) for its game: the claim's id,
        or None when one of them was taken, cancelled or gone meanwhile."""
        cid = secrets.token_hex(8)
        record = {**table, "claim_id": cid, "claimed_at": time.time()}
        tids = list(table["ticket_ids"])
        keys = [WAITING, CLAIMS, claim_key(cid), *(ticket_key(t) for t in tids)]
        args = [json.dumps(record), cid, repr(record["claimed_at"]), table["game_id"], *tids]
        return cid if await self._claim(keys=keys, args=args) == 1 else None

    async def stale_claims(self, now: float, limit: int = 50) -> list[dict[str, Any]]:
        """Claims older than the lease (their matcher died before it finished them)."""
        ids = await self.r.zrangebyscore(CLAIMS, "-inf", now - CLAIM_LEASE, start=0, num=limit)
        raws = await self.r.mget([claim_key(c) for c in ids]) if ids else []
        return [json.loads(raw) for raw in raws if raw is not None]

    async def take_over(self, cid: str, now: float) -> bool:
        """Renew a stale claim's lease for this matcher; False if another took it first."""
        return bool(await self.r.zadd(CLAIMS, {cid: now}, xx=True, ch=True))

    async def finish_claim(
        self, claim: dict[str, Any], seats: dict[str, int], met: dict[str, list[str]]
    ) -> None:
        """The claim's game exists: its tickets are ``matched`` (each with its seat), their owners free
        to queue again, each account's recent opponents noted, the claim gone."""
        tickets = await self.r.mget([ticket_key(t) for t in claim["ticket_ids"]])
        async with self.r.pipeline(transaction=True) as pipe:
            for raw in tickets:
                if raw is None:
                    continue
                ticket = json.loads(raw)
                ticket.update(status="matched", seat=seats.get(ticket["members"][0]))
                pipe.set(ticket_key(ticket["ticket_id"]), json.dumps(ticket), keepttl=True)
                pipe.delete(held_key(ticket["members"][0], ticket["kind"]))
            for account, opponents in met.items():
                pipe.set(met_key(account), json.dumps(opponents), ex=86400)
            pipe.delete(claim_key(claim["claim_id"]))
            pipe.zrem(CLAIMS, claim["claim_id"])
            await pipe.execute()

    async def recent_opponents(self, accounts: list[str]) -> dict[str, list[str]]:
        raws = await self.r.mget([met_key(a) for a in accounts]) if accounts else []
        return {a: json.loads(raw) for a, raw in zip(accounts, raws, strict=True) if raw is not None}

    async def save_party(self, party: dict[str, Any], ttl: int) -> None:
        await self.r.set(party_key(party["party_id"]), json.dumps(party), ex=ttl)

    async def party(self, pid: str) -> dict[str, Any] | None:
        raw = await self.r.get(party_key(pid))
        return None if raw is None else dict(json.loads(raw))

    async def join_party(self, pid: str, account: str, most: int, invite_hash: str) -> str:
        """Add ``account`` to the party: ``ok``, or why not (``gone``, ``code``, ``member``, ``full``)."""
        return str(await self._join_party(keys=[party_key(pid)], args=[account, str(most), invite_hash]))
