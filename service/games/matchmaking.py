"""Play now (``games.matchmaking``): tickets and parties for players and bot accounts, and the matcher's
pass that seats them (docs/apps.md, "Matchmaking").

A ticket names its owner's account (a player's credential or a bot's API key: one ticket per game an
account) and, through a party, its friends. A pass of the matcher (``atout matchmaker``, or the one
``atout serve`` runs) reads the waiting tickets (bounded), asks the pure :func:`matching.match` which
tables to open, and for each: claims its tickets (all or none, service/store/matchmaking.py), creates the
game with every seat held by its account (or a built-in bot), then marks the tickets matched and tells
each account ``match_found`` on its stream. Several matchers may run: a ticket is claimed once; a claim a
matcher left unfinished (it died) is finished by the next pass after its lease, the game's creation being
idempotent on the id the claim holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import engine
from schema.games import game_options
from schema.matchmaking import CreatePartyRequest, CreateTicketRequest, Party, Ticket
from service.base import logs
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games import matching
from service.games.core import Credentials, GameCore, check_id, engine_problem, new_game_id, your_turn
from service.games.players import Players
from service.games.ratings import seat_account
from service.store import Store
from service.store.keys import STATUS_ACTIVE, hash_token, owner_player
from service.store.records import GameRecord, Seat

log = logs.get_logger("atout.matchmaking")

OPENING_AT_ONCE = 16
"""Tables one pass opens at once (each a dozen Redis round trips): a backlog drains faster, and the
store never sees more than this many openings of one matcher in flight."""

PASS_TICKETS = 20_000
"""The most waiting tickets one pass reads (the oldest). The matching of 10,000 takes 0.3 s; opening
their tables takes longer (bench/matchmaking.py: ~5 ms a table, one after the other)."""


@dataclass
class PassReport:
    """What one pass of the matcher did: for its log and the metrics."""

    tables: int = 0
    bot_filled: int = 0
    expired: int = 0
    lost_races: int = 0
    recovered: int = 0
    waited: list[float] = field(default_factory=list)  # seconds each matched ticket waited
    waiting: dict[str, int] = field(default_factory=dict)  # tickets left waiting, by pool ("rough/casual")
    seated: set[str] = field(default_factory=set)  # the tickets this pass seated


class Matchmaking:
    """Tickets, parties and the matcher's pass (see the module's docstring)."""

    def __init__(
        self, core: GameCore, store: Store, settings: Settings, credentials: Credentials, players: Players
    ) -> None:
        self.core, self.store, self.settings = core, store, settings
        self.credentials, self.players = credentials, players

    # --- tickets ----------------------------------------------------------------------------------

    async def create_ticket(self, request: CreateTicketRequest, token: str | None) -> Ticket:
        owner, name = await self._account(token)
        members = await self._members(request, owner)
        options = self._options(request)
        if request.bots_for_the_rest and request.rated and not self.settings.matchmaking_rated_bot_fill:
            raise ProblemError("bots_not_allowed", "This server does not seat built-in bots at rated tables.")
        now = time.time()
        ticket = {
            "ticket_id": new_game_id(),
            "kind": request.kind,
            "rated": request.rated,
            "options": options,
            "party_id": request.party_id,
            "members": members,
            "names": await self._names(members, owner, name),
            "status": "waiting",
            "created_at": now,
            "bots_for_the_rest": request.bots_for_the_rest,
            "bot_account": owner_player(owner) is None,
            "rating": await self._rating(request.kind, members),
        }
        ttl = self.settings.matchmaking_ticket_seconds + 86400  # readable a day after it ends
        done, held = await self.store.matchmaking.queue(ticket, ttl, self.settings.matchmaking_max_waiting)
        if done == 0:
            raise ProblemError(
                "ticket_held",
                Text("You hold ticket {tid} for this game already: cancel it or wait.", tid=held),
                ticket_id=held,
            )
        if done < 0:
            raise ProblemError(
                "server_full", "Too many players are waiting; try again shortly.", retry_after=30
            )
        return await self._answer(ticket)

    async def ticket(self, tid: str, token: str | None) -> Ticket:
        return await self._answer(await self._own_ticket(tid, token))

    async def cancel_ticket(self, tid: str, token: str | None) -> Ticket:
        ticket = await self._own_ticket(tid, token)
        status = (await self.store.matchmaking.end_waiting(ticket, "cancelled")).removeprefix("not:")
        if status != "cancelled" or ticket["status"] != "waiting":
            status = "waiting" if status == "matching" else status  # a table is being opened with it
            raise ProblemError(
                "ticket_not_waiting",
                Text(
                    "Ticket {tid} is {status}: only a waiting ticket can be cancelled.",
                    tid=tid,
                    status=status,
                ),
            )
        return await self.ticket(tid, token)

    async def _own_ticket(self, tid: str, token: str | None) -> dict[str, Any]:
        """The caller's ticket; anyone else's is answered as unknown (404): ids are not secrets."""
        owner, _ = await self._account(token)
        check_id("ticket_id", tid, "ticket_not_found")
        ticket = await self.store.matchmaking.ticket(tid)
        if ticket is None or ticket["members"][0] != owner:
            raise ProblemError("ticket_not_found", Text("There is no ticket {tid} of yours.", tid=tid))
        return ticket

    async def account(self, token: str | None) -> str:
        """The account a Play-now call acts for, checked before its body is read (401 otherwise)."""
        return (await self._account(token))[0]

    async def _account(self, token: str | None) -> tuple[str, str]:
        owner, name = await self.players.account_of(token)
        if not token:
            raise ProblemError("missing_token", "Play now needs your account: send its credential.")
        if not owner:
            raise ProblemError(
                "invalid_token", "Play now needs your account: a player's credential or a bot's API key."
            )
        return owner, name

    async def _members(self, request: CreateTicketRequest, owner: str) -> list[str]:
        if request.party_id is None:
            return [owner]
        party = await self.store.matchmaking.party(request.party_id)
        if party is None or party["leader"] != owner:
            raise ProblemError(
                "party_not_found", Text("There is no party {pid} that you lead.", pid=request.party_id)
            )
        if party["kind"] != request.kind:
            raise ProblemError("invalid_request", Text("Your party is for {kind}.", kind=party["kind"]))
        return list(party["members"])

    def _options(self, request: CreateTicketRequest) -> dict[str, Any] | None:
        if request.options is None:
            return None
        try:  # checked as a create request's (422 invalid_options), kept whole as the game shows them:
            m = engine.new_match(request.kind, seed=0, options=request.options or None)
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        return dict(sorted(m.options.items()))  # so that asking a default or not asks the same table

    async def _names(self, members: list[str], owner: str, name: str) -> dict[str, str]:
        """Each member's display name, as its seat will show it (a bot account's: none)."""
        names = {owner: name}
        for member in members:
            pid = owner_player(member)
            if member != owner and pid is not None:
                player = await self.store.players.load_player(pid, self.settings.player_idle_ttl)
                names[member] = "" if player is None else player.get("name", "")
        return names

    async def _rating(self, kind: str, members: list[str]) -> float:
        """The party's display rating (its members' mean; a new account 0)."""
        accounts = [seat_account("human", m) for m in members]
        stored = await self.store.ratings.load_ratings(accounts, kind)
        return sum(float(r.get("ordinal", "0")) if r else 0.0 for r in stored) / len(members)

    async def _answer(self, ticket: dict[str, Any]) -> Ticket:
        expires = ticket["created_at"] + self.settings.matchmaking_ticket_seconds
        status = "waiting" if ticket["status"] == "matching" else ticket["status"]
        if status == "waiting" and time.time() >= expires:
            status = "expired"  # as the next pass will write it: no pass matches it any more
        waiting = status == "waiting"
        estimate = min(self.settings.matchmaking_bot_fill_seconds, 60.0) if waiting else 0
        options = ticket.get("options")
        return Ticket.model_validate(
            {
                **{k: ticket.get(k) for k in ("ticket_id", "kind", "rated", "party_id", "members")},
                "options": None if options is None else game_options(ticket["kind"], options),
                "status": status,
                "created_at": ticket["created_at"],
                "expires_at": expires,
                "estimate_seconds": int(estimate),
                "game_id": ticket.get("game_id") if ticket["status"] == "matched" else None,
                "seat": ticket.get("seat"),
            }
        )

    # --- parties ----------------------------------------------------------------------------------

    async def create_party(self, request: CreatePartyRequest, token: str | None) -> Party:
        owner, _ = await self._account(token)
        code = secrets.token_urlsafe(12)
        party = {
            "party_id": new_game_id(),
            "kind": request.kind,
            "leader": owner,
            "members": [owner],
            "invite_hash": _hash(code),
            "created_at": time.time(),
        }
        await self.store.matchmaking.save_party(party, self.settings.matchmaking_ticket_seconds * 6)
        return self._party(party, code)

    async def join_party(self, pid: str, invite_code: str, token: str | None) -> Party:
        owner, _ = await self._account(token)
        check_id("party_id", pid, "party_not_found")
        most = engine.game((await self._party_record(pid))["kind"]).players
        joined = await self.store.matchmaking.join_party(pid, owner, most, _hash(invite_code))
        if joined == "gone":
            raise ProblemError("party_not_found", Text("There is no party {pid}.", pid=pid))
        if joined == "code":
            raise ProblemError("invalid_invite", "That is not this party's invite code.")
        if joined == "full":
            raise ProblemError("party_full", "This party has as many members as its game has seats.")
        return await self.party(pid, token)

    async def party(self, pid: str, token: str | None) -> Party:
        owner, _ = await self._account(token)
        check_id("party_id", pid, "party_not_found")
        party = await self._party_record(pid)
        if owner not in party["members"]:
            raise ProblemError("party_not_found", Text("There is no party {pid} of yours.", pid=pid))
        return self._party(party, None)

    async def _party_record(self, pid: str) -> dict[str, Any]:
        party = await self.store.matchmaking.party(pid)
        if party is None:
            raise ProblemError("party_not_found", Text("There is no party {pid}.", pid=pid))
        return party

    @staticmethod
    def _party(party: dict[str, Any], code: str | None) -> Party:
        return Party.model_validate(
            {**{k: v for k, v in party.items() if k != "invite_hash"}, "invite_code": code}
        )

    # --- the matcher's pass -----------------------------------------------------------------------

    def rules(self) -> matching.Rules:
        fill = self.settings.matchmaking_bot_fill_seconds
        return matching.Rules(
            bot_fill_after={kind: fill for kind in engine.games()},
            rated_bot_fill=self.settings.matchmaking_rated_bot_fill,
            window_start=self.settings.matchmaking_window_start,
            window_growth=self.settings.matchmaking_window_growth,
            window_max=self.settings.matchmaking_window_max,
        )

    async def run_pass(self, now: float | None = None) -> PassReport:
        """One pass: finish the claims a dead matcher left, expire old tickets, open the tables the
        waiting tickets make. Safe beside other matchers (see the module's docstring)."""
        now = time.time() if now is None else now
        report = PassReport()
        for claim in await self.store.matchmaking.stale_claims(now):
            if await self.store.matchmaking.take_over(claim["claim_id"], now):
                await self._open(claim)
                report.recovered += 1
        waiting = await self._unexpired(await self.store.matchmaking.waiting(PASS_TICKETS), now, report)
        met = await self.store.matchmaking.recent_opponents(
            sorted({m for t in waiting for m in t["members"]})
        )
        by_id = {t["ticket_id"]: t for t in waiting}
        tables = matching.match([_pure(t, met) for t in waiting], now, self.rules())
        for start in range(0, len(tables), OPENING_AT_ONCE):  # independent tables: their round trips overlap
            chunk = tables[start : start + OPENING_AT_ONCE]
            await asyncio.gather(*(self._seat(table, by_id, now, report) for table in chunk))
        for ticket in waiting:
            if ticket["ticket_id"] not in report.seated:
                pool = f"{ticket['kind']}/{'rated' if ticket['rated'] else 'casual'}"
                report.waiting[pool] = report.waiting.get(pool, 0) + 1
        return report

    async def _unexpired(
        self, tickets: list[dict[str, Any]], now: float, report: PassReport
    ) -> list[dict[str, Any]]:
        kept = []
        for ticket in tickets:
            if ticket["created_at"] + self.settings.matchmaking_ticket_seconds > now:
                kept.append(ticket)
            elif await self.store.matchmaking.end_waiting(ticket, "expired") == "expired":
                report.expired += 1  # its owner reads it `expired`
        return kept

    async def _seat(
        self, table: matching.Table, by_id: dict[str, dict[str, Any]], now: float, report: PassReport
    ) -> None:
        tickets = [by_id[t] for t in table.ticket_ids]
        gone = [t for t in tickets if not await self._members_exist(t)]
        for ticket in gone:  # a player deleted while waiting: the ticket ends, the others wait on
            await self.store.matchmaking.end_waiting(ticket, "cancelled")
        if gone:
            return
        plan = {
            "game_id": new_game_id(),
            "kind": table.kind,
            "rated": table.rated,
            "options": json.loads(table.options_key) if table.options_key else None,
            "seats": list(table.seats),
            "bot_level": table.bot_level,
            "ticket_ids": list(table.ticket_ids),
            "members": {t["ticket_id"]: list(t["members"]) for t in tickets},
            "names": {k: v for t in tickets for k, v in t.get("names", {}).items()},
        }
        cid = await self.store.matchmaking.claim(plan)
        if cid is None:
            report.lost_races += 1  # another matcher took one of them, or its owner cancelled
            return
        await self._open({**plan, "claim_id": cid})
        report.tables += 1
        report.bot_filled += table.bot_level is not None
        report.waited += [now - t["created_at"] for t in tickets]
        report.seated.update(table.ticket_ids)

    async def _open(self, claim: dict[str, Any]) -> None:
        """Create the claim's game (once: a second try finds it written), then end the claim."""
        record, m = self._record(claim)
        events = _opening_events(record, m)
        if not await self.store.games.create(record, [json.dumps(e) for e in events]):
            # written by the matcher that died (a recovered claim): carry on from the stored game,
            # every step below being safe to repeat (set adds, a unique job, notices at least once)
            record = await self.core.get(record.id)
            m = self.core.match_of(record)
        await self._index(record)
        await self.core.maybe_enqueue_bot(record, m)
        await self.core.notify_accounts(record, m)
        seats = {s.owner: i for i, s in enumerate(record.seats) if s.owner}
        await self._tell_found(claim, record, seats)
        met = {a: [o for o in seats if o != a] for a in seats} if claim["rated"] else {}
        await self.store.matchmaking.finish_claim(claim, seats, met)

    async def _members_exist(self, ticket: dict[str, Any]) -> bool:
        for member in ticket["members"]:
            pid = owner_player(member)
            if pid is not None and not await self.store.players.player_exists(pid):
                return False
        return True

    async def _index(self, record: GameRecord) -> None:
        """The game in each seated account's list. A player's list that is full of games in play (or a
        player gone meanwhile) keeps the seat, not the listing: the match goes on, the notice finds
        the player, and the matcher never stops on one account."""
        for owner in sorted({s.owner for s in record.seats if s.owner}):
            pid = owner_player(owner)
            if pid is None:
                await self.store.bots.add_bot_game(owner, record.id)
                continue
            await self.store.players.add_player_seat(pid, record.id)  # a deletion frees the seat
            try:
                await self.players.index_player_game(pid, record.id)
            except ProblemError as refused:
                log.warning("matched_game_not_listed", game=record.id, player=pid, code=refused.code)

    async def _tell_found(self, claim: dict[str, Any], record: GameRecord, seats: dict[str, int]) -> None:
        """``match_found`` to every account the claim seated, naming the ticket that brought it; for a
        player, the app backends' webhooks too (the facts, never the view: docs/rules.md ALL-7), once
        per player and game however often a recovered claim is opened again."""
        for tid, members in claim["members"].items():
            for member in members:
                notice = {
                    "type": "match_found",
                    "ticket_id": tid,
                    "game_id": record.id,
                    "kind": record.game,
                    "version": record.version,
                    "seat": seats[member],
                }
                await self.store.bots.notify_account(member, notice)
                pid = owner_player(member)
                if pid is not None:
                    facts = {key: value for key, value in notice.items() if key != "type"}
                    key = f"{record.id}:match:{pid}"
                    await self.core.emit_webhook("match_found", {**facts, "player_id": pid}, key=key)

    def _record(self, claim: dict[str, Any]) -> tuple[GameRecord, engine.Match]:
        key = secrets.token_bytes(32)  # the match key K (docs/fairness.md), secret until the end
        m = engine.new_match(claim["kind"], seed=key, options=claim["options"] or None)
        level = claim["bot_level"]
        seats = [
            # held by its account's own credential; the seat token behind the hash is never shown
            Seat(
                kind="human",
                name=claim["names"].get(owner, ""),
                owner=owner,
                token_hash=hash_token(secrets.token_urlsafe(32)),
            )
            if owner is not None
            else Seat(kind=f"bot:{level}", name=f"bot:{level}")
            for owner in claim["seats"]
        ]
        now = time.time()
        record = GameRecord(
            id=claim["game_id"],
            game=claim["kind"],
            players=len(seats),
            options=engine.view(m, None).get("options", claim["options"] or {}),
            seed=key.hex(),
            version=0,
            state=engine.to_json(m),
            status=STATUS_ACTIVE,
            seats=seats,
            listed=False,
            created_at=now,
            updated_at=now,
            extra={"matchmaking": True, **({"rated": True} if claim["rated"] else {})},
        )
        return record, m


def _opening_events(record: GameRecord, m: engine.Match) -> list[dict[str, Any]]:
    """A game started at its creation: created (with its commitment), started, dealt, the first turn."""
    created = {
        "type": "game_created",
        "kind": record.game,
        "seats": [s.kind for s in record.seats],
        "commitment": engine.match_commitment(m),
    }
    started = {"type": "game_started", "client_seeds": list(m.client_seeds)}
    return [created, started, *m.events, *your_turn(m, record.version, record)]


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _pure(ticket: dict[str, Any], met: dict[str, list[str]]) -> matching.Ticket:
    options = ticket.get("options")
    return matching.Ticket(
        ticket_id=ticket["ticket_id"],
        kind=ticket["kind"],
        rated=bool(ticket["rated"]),
        options_key="" if options is None else json.dumps(options, sort_keys=True),
        members=tuple(ticket["members"]),
        rating=float(ticket.get("rating", 0.0)),
        created_at=float(ticket["created_at"]),
        recent_opponents=frozenset(o for m in ticket["members"] for o in met.get(m, [])),
        bots_for_the_rest=bool(ticket.get("bots_for_the_rest")),
        bot_account=bool(ticket.get("bot_account")),
    )
