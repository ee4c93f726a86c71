"""The runner's loop: follow a bot account's stream and play every game it is seated in.

For each notice of ``GET /v1/bots/me/stream``: a ``your_turn`` is answered with the bot's
``decide(view, legal_actions)``, sent with the bot's API key (which acts in every seat its bot holds,
joined or given by a tournament: the runner keeps no seat token, docs/credentials.md), the ``seat``,
``expected_version`` and an ``Idempotency-Key`` fixed by the game, seat and version (a retry after a
broken connection, even from a restarted runner, is never played twice: the service answers it
``replayed``); a ``game_finished`` lets the game's bots go. One instance of the bot class per seat
and game, as in the arena.

On connecting the first time, the runner plays the seats its account says are to act
(``GET /v1/bots/me``): a runner restarted without any state file finishes its games with its key
alone.

A drop of the connection, a restart of the service: the stream resumes after its last notice (no
gap, no duplicate), and a move whose answer was lost is sent again with its key until answered;
when the service stays away the runner tries again with a doubling wait, up to ``max_backoff``
seconds, for ``max_outage`` seconds, then gives up (:class:`ServiceGone`).
``stop()`` (the CLI calls it on SIGTERM) lets the move in flight finish and ends the loop; while the
runner only waits (for a notice, or before reconnecting), :class:`Stopped` is raised to end at once."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from atout.client import ApiError, Client, ConnectionLost, StreamResync
from atout.runner.journal import Journal
from atout.runner.state import RunnerState
from schema.games import ActionResponse, BotNotice, BotStatus
from workers.arena import Bot

T = TypeVar("T")
REFUSED_MOVES = {"version_conflict", "not_your_turn", "game_finished", "game_not_started"}
"""Refusals that say the turn is gone (a turn clock played it, the match ended): nothing to do."""


class Stopped(BaseException):
    """Raised where the runner waits, when it is told to stop (a BaseException: no ``except
    Exception`` of a bot or of the client swallows it)."""


class ServiceGone(Exception):
    """The service stayed unreachable longer than the runner's ``max_outage``."""


class Outage:
    """How long the runner has waited for the service, and the next wait: doubling from half a
    second up to ``max_backoff`` (or the service's Retry-After); :class:`ServiceGone` past
    ``max_outage`` seconds. An answer that is not 429 or 503 is no outage: re-raised."""

    def __init__(self, max_outage: float, max_backoff: float) -> None:
        self.max_outage, self.max_backoff = max_outage, max_backoff
        self.started: float | None = None
        self.backoff = 0.5

    def wait(self, error: ConnectionLost | ApiError) -> float:
        if isinstance(error, ApiError) and error.status not in (429, 503):
            raise error
        now = time.monotonic()
        self.started = now if self.started is None else self.started
        if now - self.started > self.max_outage:
            raise ServiceGone(
                f"the service was unreachable for {now - self.started:.0f} s: {error}"
            ) from error
        wait = max(self.backoff, error.retry_after or 0) if isinstance(error, ApiError) else self.backoff
        self.backoff = min(self.max_backoff, self.backoff * 2)
        return wait


def first_legal(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal answer whatever the bot did: the first legal action (a discard template's first
    ``count`` cards)."""
    action = legal[0]
    if action["type"] == "discard":
        return {"type": "discard", "cards": list(action["choices"][: action["count"]])}
    return dict(action)


def _json(model: Any) -> Any:
    """A view or legal action as the engine wrote it (the fields it sent, nothing added)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Runner:
    def __init__(
        self,
        bot: type[Bot],
        client: Client,
        state: RunnerState | None = None,
        journal: Journal | None = None,
        *,
        max_outage: float = 300.0,
        max_backoff: float = 10.0,
        ndjson: bool = False,
    ) -> None:
        self.bot, self.client = bot, client
        self.state = state if state is not None else RunnerState()
        self.journal = journal if journal is not None else Journal()
        self.max_outage, self.max_backoff, self.ndjson = max_outage, max_backoff, ndjson
        self.bots: dict[tuple[str, int], Bot] = {}
        self.acted: dict[tuple[str, int], int] = {}  # the version each seat last played at
        self.moves = 0
        self.stopping = False
        self.waiting = False  # blocked on the stream or a backoff: a stop may cut it short

    # --- set-up ---------------------------------------------------------------------------------

    def check(self) -> BotStatus:
        """The bot account the key names (ApiError ``invalid_token`` otherwise)."""
        status = self.client.bot_me()
        self.journal("connected", bot_id=status.bot_id, name=status.name, seats=len(status.seats))
        return status

    def join(self, game_id: str, seat: int | None = None) -> int:
        """Take a seat with the bot's API key (the seat is the bot's: the key acts in it)."""
        joined = self.client.join(game_id, seat)
        self.journal("joined", game=joined.game_id, seat=joined.seat, started=joined.started)
        return joined.seat

    # --- the loop -------------------------------------------------------------------------------

    def stop(self) -> None:
        """End the loop: now when it only waits, after the move in flight otherwise."""
        self.stopping = True
        if self.waiting:
            raise Stopped

    def run(self) -> None:
        """Follow the stream until :meth:`stop` (or :class:`ServiceGone`, or an ApiError such as a
        key that stopped working)."""
        outage = Outage(self.max_outage, self.max_backoff)
        caught_up = False
        while not self.stopping:
            stream = self.client.bot_turns(last_event_id=self.state.last_event_id, ndjson=self.ndjson)
            try:
                if not caught_up:  # the turns waiting since before this runner (no state: every one)
                    self.catch_up()
                    caught_up = True
                notices = iter(stream)
                while not self.stopping:
                    notice = self._wait(next, notices, None)
                    if notice is None:
                        break
                    outage = Outage(self.max_outage, self.max_backoff)
                    self.handle(notice)
                    self.state.last_event_id = stream.last_event_id
                    self.state.save()
            except StreamResync as resync:
                self.journal("resync", level="warning", code=resync.code, after=resync.last_event_id)
                self.state.last_event_id = resync.last_event_id
                self.catch_up()
            except (ConnectionLost, ApiError) as error:
                wait = outage.wait(error)
                self.journal("reconnecting", level="warning", reason=str(error), wait_s=round(wait, 2))
                self._wait(time.sleep, wait)

    def _wait(self, block: Callable[..., T], *args: Any) -> T:
        self.waiting = True
        try:
            if self.stopping:
                raise Stopped
            return block(*args)
        finally:
            self.waiting = False

    def catch_up(self) -> None:
        """At the start and after a resync: play the seats the account says are to act (the notices
        before, or in between, are not at hand)."""
        for seat in self.check().seats:
            if seat.your_turn:
                answer = self.client.view(seat.game_id, seat=seat.seat)
                if answer.legal_actions and answer.seat is not None:
                    legal = [_json(a) for a in answer.legal_actions]
                    self.play(seat.game_id, answer.seat, answer.version, _json(answer.view), legal)

    # --- the notices ----------------------------------------------------------------------------

    def handle(self, notice: BotNotice) -> None:
        if notice.type == "tournament_game":  # its seats are the bot's: the key plays them
            self.journal(
                "tournament_game", game=notice.game_id, tournament=notice.tournament_id, seats=notice.seats
            )
        elif notice.type == "your_turn":
            legal = [_json(a) for a in notice.legal_actions]
            self.play(notice.game_id, notice.seat, notice.version, _json(notice.view), legal)
        elif notice.type == "game_finished":
            for key in [k for k in self.bots if k[0] == notice.game_id]:
                del self.bots[key]
            for key in [k for k in self.acted if k[0] == notice.game_id]:
                del self.acted[key]
            self.state.forget(notice.game_id)
            self.journal("game_finished", game=notice.game_id, winners=notice.winners, version=notice.version)

    def play(self, game_id: str, seat: int, version: int, view: Any, legal: list[dict[str, Any]]) -> None:
        """Decide and send one move; each decision is one ``decision`` line (its time, the move's)."""
        key = (game_id, seat)
        if self.acted.get(key, -1) >= version or not legal:
            return  # played already (a notice seen again after a resync)
        started = time.perf_counter()
        action, failure = self._decide(key, view, legal)
        decided = time.perf_counter()
        sent = action if failure is None else first_legal(legal)
        try:
            answer = self._send(game_id, seat, version, sent, "")
        except ApiError as error:
            if error.code == "illegal_action" and failure is None:
                failure, sent = f"illegal_action: {error.detail}", first_legal(legal)
                answer = self._send(game_id, seat, version, sent, ":fallback")
            elif error.code in REFUSED_MOVES:
                self.acted[key] = version
                self.journal("turn_gone", game=game_id, seat=seat, version=version, code=error.code)
                return
            else:
                raise
        self.acted[key] = version
        self.moves += 1
        self.journal(
            "decision",
            level="info" if failure is None else "error",
            game=game_id,
            seat=seat,
            version=version,
            action=sent,
            decide_ms=round((decided - started) * 1000, 3),
            move_ms=round((time.perf_counter() - decided) * 1000, 3),
            replayed=answer.replayed,
            **({"fallback": failure} if failure is not None else {}),
        )

    def _send(
        self, game_id: str, seat: int, version: int, action: dict[str, Any], suffix: str
    ) -> ActionResponse:
        """The move, sent until the service answers it: its Idempotency-Key is fixed by the game,
        seat and version, so a move whose answer was lost (the connection cut, the service restarted)
        is answered ``replayed`` when sent again, never played twice. Given up after ``max_outage``
        (:class:`ServiceGone`), or abandoned when the runner is stopping (:class:`Stopped`)."""
        outage = Outage(self.max_outage, self.max_backoff)
        key = f"runner:{game_id}:{seat}:{version}{suffix}"
        while True:
            try:
                return self.client.act(  # with the bot's key: it acts in its bot's seats, named here
                    game_id, action, expected_version=version, seat=seat, idempotency_key=key
                )
            except (ConnectionLost, ApiError) as error:
                wait = outage.wait(error)
                if self.stopping:
                    raise Stopped from error
                self.journal(
                    "move_retry",
                    level="warning",
                    game=game_id,
                    seat=seat,
                    version=version,
                    reason=str(error),
                    wait_s=round(wait, 2),
                )
                self._wait(time.sleep, wait)

    def _decide(self, key: tuple[str, int], view: Any, legal: list[dict[str, Any]]) -> tuple[Any, str | None]:
        """The bot's answer, or why there is none (it raised, or answered something not an object):
        then the first legal action is played, and the decision line says why."""
        try:
            bot = self.bots.get(key)
            if bot is None:
                bot = self.bots[key] = self.bot()
            action = bot.decide(view, legal)
        except Exception as error:
            return None, "the bot raised " + "".join(traceback.format_exception_only(error)).strip()
        if not isinstance(action, dict):
            return None, f"the bot answered {action!r:.200}, not a JSON object"
        return action, None
