"""Tournaments on the service: created by the administrator or a bot account, played as ordinary games.

The pairing, the game keys and the scoring are ``workers.tournament``'s, the code ``atout arena
--tournament`` runs locally. Here they meet the service: each game of a round is created already
started (every seat is filled by the organiser), keyed by its deal's key derived from the
tournament key, so its published match commitment follows from the tournament's commitment and the
key, revealed when the tournament ends, lets anyone re-derive every deal (docs/fairness.md).

Entrants. A built-in bot (``bot:<level>``) needs no account: its seats are bot seats the RQ workers
play. A bot account (``account:<bot_id>``) is seated with owner = its account, as its own join would
seat it, and gets its two seat tokens in a ``tournament_game`` notice on its stream, before the
``your_turn`` notices of that game (a seat acts with its seat token, as after any join). Its seats
have a turn clock of ``move_seconds``: a move not made in time is played by a heuristic bot (after
three in a row, for the rest of the game), and the game is flagged for that entrant.

Who may be entered. Entrants are typed (schema/tournaments.py): a built-in level of the known list, or
an existing bot account. The administrator may enter any bot account; a bot account may enter built-in
bots and itself, never another account: playing in someone's tournament costs an account its stream
and its moves' deadlines, so it is entered only with its consent, which the administrator arranges
(403 ``entrant_not_allowed``). A bot account's seats are named by its name under the display rule
(schema/display.py; an older name that breaks it gives way to the account's id).

Caps. A tournament's games are games like any: each round is admitted all at once by the quotas of
``POST /v1/games`` (service/games/quotas.py): its creator's cap on unfinished games (the
administrator is exempt), the server's total, and the server's cap on running tournament games
(``tournament_max_running_games``). A round that could never fit is refused at creation (422
``invalid_tournament``); the first round that does not fit now is refused at creation with the cap's
code and ``Retry-After``, before anything is written; a later round that does not fit now waits (the
tournament's ``waiting`` names the cap) and is tried again at each check, until it fits or the
tournament runs out of time.

Rounds. A job (workers/jobs/tournaments.py) checks the round every ``tournament_poll_seconds``:
once all its games are over it scores them and starts the next round, or ends the tournament. The
check holds the tournament's lock, and a round is started by writing its games to the record, so a
repeated or late check finds the work done. A tournament running past ``tournament_max_seconds``
stops, scored on its finished games.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from schema.tournaments import CreateTournamentRequest, Tournament
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games import quotas
from service.games.core import Credentials, GameCore, check_id, engine_problem, new_game_id, your_turn
from service.games.events import stream_cursor
from service.games.tournament_entry import bot_or_forbidden, checked_entrants, checked_rounds, seat_name
from service.games.tournament_views import (
    FINISHED,
    RUNNING,
    STOPPED,
    finished_outcomes,
    game_of,
    tournament_view,
)
from service.store import Store
from service.store.keys import (
    STATUS_ACTIVE,
    STATUS_FINISHED,
    hash_token,
    player_owner,
    tournament_owner,
)
from service.store.records import GameRecord, Seat
from workers import tournament as t

EnqueueTournament = Callable[[str], Awaitable[None]]
"""Schedule the next check of tournament ``id`` (the API's and the worker's RQ producer)."""

LOCK_SECONDS = 60
EVENT_PAGES = 20
"""Pages of 1000 events read to find a game's timed-out turns (bounded; a game has a few hundred)."""
ROUND_WAITS = frozenset({"too_many_games", "server_full", "tournaments_full"})
"""The refusals a later round waits out (a cap on open games: some finish, places free up)."""


@dataclass
class RoundPlan:
    """A round paired, its games' ids and keys chosen, nothing built or written yet: it is admitted by
    the caps first, so a round that must wait costs no engine work and leaves no trace."""

    number: int
    bye: int | None
    entries: list[dict[str, Any]] = field(default_factory=list)
    specs: list[t.GameSpec] = field(default_factory=list)

    @property
    def game_ids(self) -> list[str]:
        return [str(e["game_id"]) for e in self.entries]


class Tournaments:
    """Create, read and advance tournaments (``games.tournaments``); checks are scheduled with
    ``enqueue_tournament`` (without one, nothing advances a tournament)."""

    def __init__(
        self,
        core: GameCore,
        store: Store,
        settings: Settings,
        credentials: Credentials,
        enqueue_tournament: EnqueueTournament | None = None,
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.enqueue_tournament = enqueue_tournament

    async def create_tournament(self, request: CreateTournamentRequest, token: str | None) -> Tournament:
        if not token:
            raise ProblemError(
                "missing_token", "Send the administrator token or a bot's API key as `Authorization: Bearer`."
            )
        admin = self.credentials.is_admin(token)
        creator = "admin" if admin else await bot_or_forbidden(self.credentials, token)
        rounds = checked_rounds(request, creator, self.settings)
        options = {"target_score": request.target_score} if request.target_score else {}
        try:
            engine.new_match(request.kind, seed=0, options=options or None)  # 422 invalid_options
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        entrants = await checked_entrants(self.store.bots, request.entrants, creator)
        key = t.new_key()
        now = time.time()
        tid = new_game_id()
        record: dict[str, Any] = {
            "id": tid,
            "name": request.name,
            "creator": creator,
            "game": request.kind,  # the stored record's own word (tournament_view says `kind`)
            "format": request.format,
            "status": RUNNING,
            "round": 0,
            "rounds": rounds,
            "deals": request.deals,
            "duplicate": request.duplicate,
            "move_seconds": request.move_seconds,
            "options": options,
            "key": key.hex(),
            "commitment": t.commitment(key),
            "entrants": entrants,
            "byes": [],
            "games": [],
            "created_at": now,
            "finished_at": None,
        }
        plan = self._plan_round(record)
        if creator != "admin":
            until = now + self.settings.tournament_max_seconds
            cap = self.settings.tournament_account_running
            if not await self.store.tournaments.admit_tournament(creator.partition(":")[2], tid, cap, until):
                raise ProblemError(
                    "too_many_tournaments",
                    Text(
                        "This bot account already has {cap} tournaments running; wait for one to end.",
                        cap=cap,
                    ),
                    headers={"Retry-After": "60"},
                    limit=cap,
                )
        try:
            await self._admit_round(record, plan)  # 429/503 with Retry-After: nothing is written
        except ProblemError:
            if creator != "admin":
                await self.store.tournaments.end_tournament(creator.partition(":")[2], tid)
            raise
        await self._start_round(record, plan)
        return tournament_view(record)

    async def tournament(self, tid: str) -> Tournament:
        return tournament_view(await self._load(tid))

    async def open_tournament_stream(self, tid: str, after: str | None, name: str) -> tuple[str, str]:
        """The first steps of following a tournament's events: its stream's owner and where it resumes."""
        await self._load(tid)
        return tournament_owner(tid), stream_cursor(after, name)

    async def stream_counted_as(self, owner: str, token: str | None) -> str | None:
        """Whom a stream of ``owner``'s notices counts against in the caps on open streams: ``owner``
        when it is the caller's own account (its credential just proved it: a bot's, a player's); for
        a tournament's events, which anyone may follow, :meth:`stream_holder`."""
        if owner.startswith(tournament_owner("")):
            return await self.stream_holder(token)
        return owner

    async def stream_holder(self, token: str | None) -> str | None:
        """Whom a stream of a shared resource (a tournament's events, which anyone may follow) counts
        against: the caller's own account when its credential holds (the administrator's token, a
        bot account's id, a player's ``player:<id>``, as their own streams count), else None, the
        caller's address. Never the resource: one client holding every place of a tournament's
        stream would lock out all the others. A credential that does not hold counts as none (a
        made-up token per stream is no fresh quota)."""
        if not token:
            return None
        if self.credentials.is_admin(token):
            return token
        try:
            if token.startswith("atb_"):
                return await self.credentials.bot_of(token)
            pid = await self.credentials.player_of(token)
        except ProblemError:
            return None
        return None if pid is None else player_owner(pid)

    async def _emit(self, record: dict[str, Any], event: dict[str, Any]) -> None:
        """Append ``event`` to the tournament's stream (at least once: a check retried may repeat one)."""
        owner = tournament_owner(record["id"])
        await self.store.bots.notify_account(owner, {"tournament_id": record["id"], **event})

    async def _load(self, tid: str) -> dict[str, Any]:
        check_id("tournament_id", tid, "tournament_not_found")
        record = await self.store.tournaments.load_tournament(tid)
        if record is None:
            raise ProblemError(
                "tournament_not_found", Text("There is no tournament {tid!r} (it may have expired).", tid=tid)
            )
        return record

    # --- rounds ----------------------------------------------------------------------------------

    async def advance_tournament(self, tid: str) -> str:
        """One check (the job's): score the round if all its games are over, then start the next round
        or end the tournament. Returns what it did; ``running`` means: check again later."""
        lock = await self.store.tournaments.lock_tournament(tid, LOCK_SECONDS)
        if lock is None:
            return "busy"  # another check is at work: it schedules the next
        try:
            record = await self.store.tournaments.load_tournament(tid)
            if record is None or record["status"] != RUNNING:
                return "gone" if record is None else str(record["status"])
            current = [g for g in record["games"] if g["round"] == record["round"]]
            over: list[str] = []
            for g in current:
                if g["status"] == STATUS_ACTIVE:
                    await self._score_game(g)
                    if g["status"] != STATUS_ACTIVE:
                        over.append(g["game_id"])
                        await self._emit(record, {"type": "game_finished", "game": game_of(g)})
            await quotas.forget_games(self.core, over, self._quota_of(record))
            done = all(g["status"] != STATUS_ACTIVE for g in current)
            if done and not record.get("waiting"):  # told once, not at each check of a waiting round
                standings = tournament_view(record).model_dump(mode="json")["standings"]
                finished = {"type": "round_finished", "round": record["round"], "standings": standings}
                await self._emit(record, finished)
            late = time.time() > record["created_at"] + self.settings.tournament_max_seconds
            if done and record["round"] < record["rounds"] and not (late and record.get("waiting")):
                plan = self._plan_round(record)
                try:
                    await self._admit_round(record, plan)
                except ProblemError as refusal:
                    if refusal.code not in ROUND_WAITS:
                        raise
                    if not late:
                        record["waiting"] = refusal.code
                        await self._save(record)
                        return "waiting"  # the next check tries again
                else:
                    await self._start_round(record, plan, schedule=False)
                    return "round started"
            if done or late:
                record["status"] = FINISHED if done and record["round"] >= record["rounds"] else STOPPED
                record["finished_at"] = time.time()
            await self._save(record)
            if record["status"] != RUNNING and record["creator"].startswith("account:"):
                await self.store.tournaments.end_tournament(record["creator"].partition(":")[2], tid)
            if record["status"] != RUNNING:
                view = tournament_view(record)
                await self._emit(
                    record,
                    {"type": "tournament_finished", "status": view.status, "key": view.key,
                     "commitment": view.commitment, "standings": view.model_dump(mode="json")["standings"]},
                )  # fmt: skip
            return str(record["status"])
        finally:
            await self.store.tournaments.unlock_tournament(tid, lock)

    async def _save(self, record: dict[str, Any]) -> None:
        await self.store.tournaments.save_tournament(record["id"], record, self.settings.tournament_ttl)

    def _quota_of(self, record: dict[str, Any]) -> str | None:
        """Whose cap on unfinished games the tournament's games count against: its creator's (the
        administrator: none), as the games the account created itself."""
        creator = str(record["creator"])
        return None if creator == "admin" else quotas.quota_id(f"bot:{creator.partition(':')[2]}")

    def _plan_round(self, record: dict[str, Any]) -> RoundPlan:
        """Pair the next round and build its games, without changing ``record``: it is admitted first
        (:meth:`_admit_round`), and a round that must wait leaves no trace."""
        n, r = len(record["entrants"]), record["round"] + 1
        plan = RoundPlan(number=r, bye=None)
        if record["format"] == "round_robin":
            pairings = t.round_robin(n, r)
        else:
            met = [(g["a"], g["b"]) for g in record["games"]]
            pairings, plan.bye = t.swiss(
                n, r, t.swiss_points(n, finished_outcomes(record)), met, list(record["byes"])
            )
        key = bytes.fromhex(record["key"])
        for p in pairings:
            for spec in t.games(key, p, record["deals"], record.get("duplicate", True)):
                plan.specs.append(spec)
                plan.entries.append(
                    {"game_id": new_game_id(), "round": r, "table": p.table, "deal": spec.deal,
                     "seating": spec.seating, "a": p.a, "b": p.b, "status": STATUS_ACTIVE}
                )  # fmt: skip
        return plan

    async def _admit_round(self, record: dict[str, Any], plan: RoundPlan) -> None:
        """Count the round's games against the caps (service/games/quotas.py), all or none; refused:
        ``too_many_games`` (429), ``server_full`` or ``tournaments_full`` (503), with ``Retry-After``."""
        cap = self.settings.tournament_max_running_games
        await quotas.admit_games(self.core, plan.game_ids, self._quota_of(record), tournament_cap=cap)

    async def _start_round(self, record: dict[str, Any], plan: RoundPlan, schedule: bool = True) -> None:
        """Write the admitted round ``plan`` to the record, then start its games; ``schedule``: enqueue
        the first check (a check that starts a round schedules the next check itself)."""
        r = plan.number
        created = [
            self._new_game(record, spec, gid) for spec, gid in zip(plan.specs, plan.game_ids, strict=True)
        ]
        if plan.bye is not None:
            record["byes"].append(plan.bye)
        record["games"].extend(plan.entries)
        record["round"] = r
        record.pop("waiting", None)
        await self._save(record)  # the round is written before any game starts: a retry finds it
        if r == 1:
            facts = {"commitment": record["commitment"], "rounds": record["rounds"]}
            await self._emit(record, {"type": "tournament_created", **facts})
        await self._emit(record, {"type": "round_started", "round": r, "game_ids": plan.game_ids})
        for game, tokens in created:
            await self._open_game(record, game, tokens)
        if schedule and self.enqueue_tournament is not None:
            await self.enqueue_tournament(record["id"])

    def _new_game(
        self, record: dict[str, Any], spec: t.GameSpec, gid: str
    ) -> tuple[GameRecord, dict[str, list[str]]]:
        """The game ``gid`` of ``spec``, started, every seat filled; and each bot account's seat tokens."""
        p = spec.pairing
        m = engine.new_match(record["game"], seed=spec.key, options=record["options"] or None)
        seats: list[Seat] = []
        tokens: dict[str, list[str]] = {}
        for seat in range(4):
            entrant = record["entrants"][p.a if seat in spec.seats_of(p.a) else p.b]
            kind, name = entrant["kind"], seat_name(entrant["name"], entrant["kind"].partition(":")[2])
            if kind.startswith("bot:"):
                seats.append(Seat(kind=kind, name=kind))
                continue
            bid = kind.partition(":")[2]
            token = secrets.token_urlsafe(32)
            tokens.setdefault(bid, []).append(token)
            seats.append(Seat(kind="human", name=name, token_hash=hash_token(token), owner=bid))
        now = time.time()
        game = GameRecord(
            id=gid,
            game=record["game"],
            players=4,
            options=engine.view(m, None).get("options", record["options"]),
            seed=spec.key.hex(),
            version=0,
            state=engine.to_json(m),
            status=STATUS_ACTIVE,
            seats=seats,
            listed=False,
            created_at=now,
            updated_at=now,
            extra={
                "tournament": record["id"],
                **({"turn_seconds": record["move_seconds"], "timeouts_to_bot": 3} if tokens else {}),
            },
        )
        return game, tokens

    async def _open_game(
        self, record: dict[str, Any], game: GameRecord, tokens: dict[str, list[str]]
    ) -> None:
        m = self.core.match_of(game)
        created = {
            "type": "game_created",
            "kind": game.game,
            "seats": [s.kind for s in game.seats],
            "commitment": engine.match_commitment(m),
        }
        events = [created, {"type": "game_started", "client_seeds": list(m.client_seeds)}, *m.events]
        events += your_turn(m, game.version, game)
        await self.store.games.create(game, [json.dumps(e) for e in events])
        for bid, held in tokens.items():
            await self.store.bots.add_bot_game(bid, game.id)
            seats = [i for i, s in enumerate(game.seats) if s.owner == bid]
            notice = {
                "type": "tournament_game",
                "tournament_id": record["id"],
                "game_id": game.id,
                "version": game.version,
                "seats": seats,
                "tokens": held,
            }
            await self.store.bots.notify_account(bid, notice)  # before its first your_turn
        await self.core.maybe_enqueue_bot(game, m)
        await self.core.notify_accounts(game, m)

    async def _score_game(self, g: dict[str, Any]) -> None:
        """Fill ``g`` from its game once the game is over (status, scores, hands, winner, flags)."""
        game = await self.store.games.load(g["game_id"])
        if game is None:
            g["status"] = "expired"  # not over, and gone: it counts as no game
            return
        if game.status != STATUS_FINISHED:
            return
        m = self.core.match_of(game)
        a_team = 0 if g["seating"] == 0 else 1
        winners = set(m.winners or ())
        a_won = any(s % 2 == a_team for s in winners)
        b_won = any(s % 2 != a_team for s in winners)
        timed_out = await self._timed_out_seats(game.id)
        g.update(
            status=STATUS_FINISHED,
            a_score=m.scores[a_team],
            b_score=m.scores[1 - a_team],
            hands=m.hand_number,
            winner="tie" if a_won == b_won else "a" if a_won else "b",
            flagged=sorted({g["a"] if s % 2 == a_team else g["b"] for s in timed_out}),
        )

    async def _timed_out_seats(self, gid: str) -> set[int]:
        seats: set[int] = set()
        after = "0-0"
        for _ in range(EVENT_PAGES):
            page = await self.store.games.events(gid, after, 1000)
            if not page:
                break
            seats |= {int(e.event["seat"]) for e in page if e.event.get("type") == "turn_timed_out"}
            after = page[-1].id
        return seats
