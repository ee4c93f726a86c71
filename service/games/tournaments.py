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

Rounds. A job (service/jobs/tournaments.py) checks the round every ``tournament_poll_seconds``:
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
from typing import Any

import engine
from schema.tournaments import (
    CreateTournamentRequest,
    HeadToHeadRecord,
    Tournament,
    TournamentEntrant,
    TournamentGame,
    TournamentStanding,
)
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.core import GameCore, engine_problem, new_game_id, your_turn
from service.games.events import stream_cursor
from service.store.keys import STATUS_ACTIVE, STATUS_FINISHED, hash_token, tournament_owner
from service.store.records import GameRecord, Seat
from workers import tournament as t

EnqueueTournament = Callable[[str], Awaitable[None]]
"""Schedule the next check of tournament ``id`` (the API's and the worker's RQ producer)."""

LOCK_SECONDS = 60
EVENT_PAGES = 20
"""Pages of 1000 events read to find a game's timed-out turns (bounded; a game has a few hundred)."""
RUNNING, FINISHED, STOPPED = "running", "finished", "stopped"


class Tournaments(GameCore):
    """Create, read and advance tournaments."""

    enqueue_tournament: EnqueueTournament | None = None

    def use_tournament_queue(self, enqueue: EnqueueTournament) -> None:
        """Schedule tournament checks with ``enqueue`` (without one, nothing advances a tournament)."""
        self.enqueue_tournament = enqueue

    async def create_tournament(self, request: CreateTournamentRequest, token: str | None) -> Tournament:
        if not token:
            raise ProblemError(
                "missing_token", "Send the administrator token or a bot's API key as `Authorization: Bearer`."
            )
        creator = "admin" if self.is_admin(token) else await self._bot_or_forbidden(token)
        try:
            rounds = t.check(
                request.game, request.format, len(request.entrants), request.rounds, request.deals
            )
        except t.TournamentError as error:
            raise ProblemError(
                "invalid_tournament", Text("This tournament cannot be played: {reason}.", reason=str(error))
            ) from None
        total = rounds * (len(request.entrants) // 2) * request.deals * 2
        most = self.settings.tournament_max_games
        if creator != "admin":
            most = min(most, self.settings.tournament_account_max_games)
        if total > most:
            raise ProblemError(
                "invalid_tournament",
                Text(
                    "This tournament would play {total} games; this server plays at most {most}.",
                    total=total,
                    most=most,
                ),
            )
        options = {"target_score": request.target_score} if request.target_score else {}
        try:
            engine.new_match(request.game, seed=0, options=options or None)  # 422 invalid_options
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        entrants: list[dict[str, str]] = []
        for kind in request.entrants:
            if kind.startswith("account:"):
                bid = kind.partition(":")[2]
                if any(e["kind"] == kind for e in entrants):
                    raise ProblemError(
                        "invalid_tournament", Text("The bot account {bid} is entered twice.", bid=bid)
                    )
                bot = await self.store.load_bot(bid)
                if bot is None:
                    raise ProblemError(
                        "bot_not_found",
                        Text("There is no bot account {bid!r} (it may have expired).", bid=bid),
                    )
                entrants.append({"kind": kind, "name": bot.get("name", "") or bid})
            else:
                entrants.append({"kind": kind, "name": kind})
        key = t.new_key()
        now = time.time()
        tid = new_game_id()
        if creator != "admin":
            until = now + self.settings.tournament_max_seconds
            cap = self.settings.tournament_account_running
            if not await self.store.admit_tournament(creator.partition(":")[2], tid, cap, until):
                raise ProblemError(
                    "too_many_tournaments",
                    Text(
                        "This bot account already has {cap} tournaments running; wait for one to end.",
                        cap=cap,
                    ),
                    headers={"Retry-After": "60"},
                    limit=cap,
                )
        record: dict[str, Any] = {
            "id": tid,
            "name": request.name,
            "creator": creator,
            "game": request.game,
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
        await self._start_round(record)
        return self.tournament_view(record)

    async def _bot_or_forbidden(self, token: str) -> str:
        try:
            return f"account:{await self.bot_of(token)}"
        except ProblemError:
            raise ProblemError(
                "tournament_forbidden", "Only the administrator or a bot account creates a tournament."
            ) from None

    async def tournament(self, tid: str) -> Tournament:
        return self.tournament_view(await self._load(tid))

    async def open_tournament_stream(self, tid: str, after: str | None, name: str) -> tuple[str, str]:
        """The first steps of following a tournament's events: its stream's owner and where it resumes."""
        await self._load(tid)
        return tournament_owner(tid), stream_cursor(after, name)

    async def _emit(self, record: dict[str, Any], event: dict[str, Any]) -> None:
        """Append ``event`` to the tournament's stream (at least once: a check retried may repeat one)."""
        owner = tournament_owner(record["id"])
        await self.store.notify_account(owner, {"tournament_id": record["id"], **event})

    async def _load(self, tid: str) -> dict[str, Any]:
        record = await self.store.load_tournament(tid)
        if record is None:
            raise ProblemError(
                "tournament_not_found", Text("There is no tournament {tid!r} (it may have expired).", tid=tid)
            )
        return record

    # --- rounds ----------------------------------------------------------------------------------

    async def advance_tournament(self, tid: str) -> str:
        """One check (the job's): score the round if all its games are over, then start the next round
        or end the tournament. Returns what it did; ``running`` means: check again later."""
        lock = await self.store.lock_tournament(tid, LOCK_SECONDS)
        if lock is None:
            return "busy"  # another check is at work: it schedules the next
        try:
            record = await self.store.load_tournament(tid)
            if record is None or record["status"] != RUNNING:
                return "gone" if record is None else str(record["status"])
            current = [g for g in record["games"] if g["round"] == record["round"]]
            for g in current:
                if g["status"] == STATUS_ACTIVE:
                    await self._score_game(g)
                    if g["status"] != STATUS_ACTIVE:
                        await self._emit(record, {"type": "game_finished", "game": g})
            done = all(g["status"] != STATUS_ACTIVE for g in current)
            if done:
                standings = self.tournament_view(record).model_dump(mode="json")["standings"]
                finished = {"type": "round_finished", "round": record["round"], "standings": standings}
                await self._emit(record, finished)
            if done and record["round"] < record["rounds"]:
                await self._start_round(record, schedule=False)
                return "round started"
            late = time.time() > record["created_at"] + self.settings.tournament_max_seconds
            if done or late:
                record["status"] = FINISHED if done else STOPPED
                record["finished_at"] = time.time()
            await self._save(record)
            if record["status"] != RUNNING and record["creator"].startswith("account:"):
                await self.store.end_tournament(record["creator"].partition(":")[2], tid)
            if record["status"] != RUNNING:
                view = self.tournament_view(record)
                await self._emit(
                    record,
                    {"type": "tournament_finished", "status": view.status, "key": view.key,
                     "commitment": view.commitment, "standings": view.model_dump(mode="json")["standings"]},
                )  # fmt: skip
            return str(record["status"])
        finally:
            await self.store.unlock_tournament(tid, lock)

    async def _save(self, record: dict[str, Any]) -> None:
        await self.store.save_tournament(record["id"], record, self.settings.tournament_ttl)

    async def _start_round(self, record: dict[str, Any], schedule: bool = True) -> None:
        """Pair the next round, create its games, save the record, then start the games; ``schedule``:
        enqueue the first check (a check that starts a round schedules the next check itself)."""
        n, r = len(record["entrants"]), record["round"] + 1
        outcomes = _outcomes(record)
        if record["format"] == "round_robin":
            pairings = t.round_robin(n, r)
        else:
            met = [(g["a"], g["b"]) for g in record["games"]]
            pairings, bye = t.swiss(n, r, t.swiss_points(n, outcomes), met, record["byes"])
            if bye is not None:
                record["byes"].append(bye)
        key = bytes.fromhex(record["key"])
        created: list[tuple[GameRecord, dict[str, list[str]]]] = []
        for p in pairings:
            for spec in t.games(key, p, record["deals"], record.get("duplicate", True)):
                game, tokens = self._new_game(record, spec)
                created.append((game, tokens))
                record["games"].append(
                    {"game_id": game.id, "round": r, "table": p.table, "deal": spec.deal,
                     "seating": spec.seating, "a": p.a, "b": p.b, "status": STATUS_ACTIVE}
                )  # fmt: skip
        record["round"] = r
        await self._save(record)  # the round is written before any game starts: a retry finds it
        if r == 1:
            facts = {"commitment": record["commitment"], "rounds": record["rounds"]}
            await self._emit(record, {"type": "tournament_created", **facts})
        ids = [game.id for game, _ in created]
        await self._emit(record, {"type": "round_started", "round": r, "game_ids": ids})
        for game, tokens in created:
            await self._open_game(record, game, tokens)
        if schedule and self.enqueue_tournament is not None:
            await self.enqueue_tournament(record["id"])

    def _new_game(self, record: dict[str, Any], spec: t.GameSpec) -> tuple[GameRecord, dict[str, list[str]]]:
        """The game of ``spec``, started, every seat filled; and each bot account's seat tokens."""
        p = spec.pairing
        m = engine.new_match(record["game"], seed=spec.key, options=record["options"] or None)
        seats: list[Seat] = []
        tokens: dict[str, list[str]] = {}
        for seat in range(4):
            entrant = record["entrants"][p.a if seat in spec.seats_of(p.a) else p.b]
            kind, name = entrant["kind"], entrant["name"]
            if kind.startswith("bot:"):
                seats.append(Seat(kind=kind, name=kind))
                continue
            bid = kind.partition(":")[2]
            token = secrets.token_urlsafe(32)
            tokens.setdefault(bid, []).append(token)
            seats.append(Seat(kind="human", name=name, token_hash=hash_token(token), owner=bid))
        now = time.time()
        game = GameRecord(
            id=new_game_id(),
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
        m = self.match_of(game)
        created = {
            "type": "game_created",
            "game": game.game,
            "seats": [s.kind for s in game.seats],
            "commitment": engine.match_commitment(m),
        }
        events = [created, {"type": "game_started", "client_seeds": list(m.client_seeds)}, *m.events]
        events += your_turn(m, game.version, game)
        await self.store.create(game, [json.dumps(e) for e in events])
        for bid, held in tokens.items():
            await self.store.add_bot_game(bid, game.id)
            seats = [i for i, s in enumerate(game.seats) if s.owner == bid]
            notice = {
                "type": "tournament_game",
                "tournament_id": record["id"],
                "game_id": game.id,
                "version": game.version,
                "seats": seats,
                "tokens": held,
            }
            await self.store.notify_account(bid, notice)  # before its first your_turn
        await self._maybe_enqueue_bot(game, m)
        await self._notify_accounts(game, m)

    async def _score_game(self, g: dict[str, Any]) -> None:
        """Fill ``g`` from its game once the game is over (status, scores, hands, winner, flags)."""
        game = await self.store.load(g["game_id"])
        if game is None:
            g["status"] = "expired"  # not over, and gone: it counts as no game
            return
        if game.status != STATUS_FINISHED:
            return
        m = self.match_of(game)
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
            page = await self.store.events(gid, after, 1000)
            if not page:
                break
            seats |= {int(e.event["seat"]) for e in page if e.event.get("type") == "turn_timed_out"}
            after = page[-1].id
        return seats

    # --- the view --------------------------------------------------------------------------------

    def tournament_view(self, record: dict[str, Any]) -> Tournament:
        n = len(record["entrants"])
        outcomes = _outcomes(record)
        over = record["status"] != RUNNING
        return Tournament(
            id=record["id"],
            name=record["name"],
            game=record["game"],
            format=record["format"],
            status=record["status"],
            round=record["round"],
            rounds=record["rounds"],
            deals=record["deals"],
            duplicate=record.get("duplicate", True),  # a tournament created before the option: duplicate
            move_seconds=record["move_seconds"],
            options=record["options"],
            commitment=record["commitment"],
            key=record["key"] if over else None,
            entrants=[TournamentEntrant(index=i, **e) for i, e in enumerate(record["entrants"])],
            byes=record["byes"],
            games=[
                TournamentGame(**g, replay=f"/v1/games/{g['game_id']}/log")
                for g in record["games"]
            ],
            standings=[
                TournamentStanding(
                    rank=s.rank, entrant=s.entrant, games=s.games, deals=s.deals,
                    points_per_deal=s.points_per_deal, ci95_low=_finite(s.low), ci95_high=_finite(s.high),
                    wins=s.wins, flagged_games=s.flagged_games,
                )
                for s in t.standings(n, outcomes)
            ],
            head_to_head=[
                HeadToHeadRecord(entrant=x, opponent=y, games=h.games, wins=h.wins,
                                 points_per_deal=h.points_per_deal)
                for (x, y), h in sorted(t.head_to_head(outcomes).items())
            ],
            created_at=record["created_at"],
            finished_at=record["finished_at"],
        )  # fmt: skip


def _finite(x: float) -> float | None:
    return x if x == x and abs(x) != float("inf") else None


def _outcomes(record: dict[str, Any]) -> list[t.Outcome]:
    return [
        t.Outcome(
            g["round"], g["table"], g["deal"], g["seating"], g["a"], g["b"], g["a_score"], g["b_score"],
            g["hands"], g["winner"], tuple(g.get("flagged", ())), g["game_id"],
        )
        for g in record["games"]
        if g["status"] == STATUS_FINISHED
    ]  # fmt: skip
