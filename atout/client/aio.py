"""The asynchronous client (:class:`AsyncClient`) and its streams (:class:`AsyncStream`), over
``httpx.AsyncClient``: :mod:`atout.client.sync` with ``await``. Both send the calls of
:mod:`atout.client.calls` under the rules of :mod:`atout.client.retry` and read streams with
:mod:`atout.client.framing`, so the two differ only in how they wait."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel

from atout.client import calls
from atout.client.errors import ConnectionLost, StreamResync, api_error
from atout.client.framing import NDJSON, SSE, FrameReader, decode_frame, end_of, reconnect_delay
from atout.client.retry import RetryPolicy, retryable
from atout.client.session import Session
from schema.games import (
    ActionResponse,
    BotNotice,
    BotRegistered,
    BotStatus,
    CreateGameRequest,
    CreateGameResponse,
    GameList,
    GameSummary,
    JoinResponse,
    LeaveResponse,
    LegalActionsResponse,
    LogResponse,
    RematchResponse,
    RulesResponse,
    ViewResponse,
)
from schema.players import Me, PlayerCreated, PlayerNotice
from schema.tournaments import CreateTournamentRequest, Tournament, TournamentEvent
from schema.views import EventEnvelope

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741  (an item of a stream)
log = logging.getLogger("atout.client")


class AsyncClient:
    """The Atout REST API, typed by the models of ``schema/``: :class:`atout.client.Client`, async.

    ``token`` is the default bearer token (a bot's API key, a player's token, a seat token); every
    method takes ``token=`` to use another one for that call (a bot's key or a player's
    credential acts in every seat of its account, named by ``seat=``: seat tokens are for anonymous
    play, docs/credentials.md). Problems raise :class:`ApiError` with
    their ``code``; 429, and 503 or a broken connection on a read or a move, are retried under
    ``retry``. Use it as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: RetryPolicy | None = None,
        timeout: float = 10.0,
        stream_read_timeout: float = 60.0,
    ) -> None:
        self.session = Session(base_url, token, retry or RetryPolicy(), timeout, stream_read_timeout)
        self._http = httpx.AsyncClient(base_url=self.session.base_url, timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def send(self, call: calls.Call[T], token: str | None = None) -> T:
        """One call, retried as its kind allows (:mod:`atout.client.retry`)."""
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            status: int | None = None
            error: Exception
            try:
                response = await self._http.request(
                    call.method,
                    call.path,
                    json=call.json,
                    params=call.params,
                    headers=self.session.headers(token, call.headers),
                )
            except httpx.TransportError as failure:
                error, retry_after = failure, None
            else:
                if response.is_success:
                    return call.decode(response)
                error = api_error(response)
                status, retry_after = response.status_code, error.retry_after
            delay = (
                self.session.retry.delay(attempt, waited, retry_after)
                if retryable(call.safe, status)
                else None
            )
            if delay is None:
                raise self.session.gave_up(call, error, attempt)
            self.session.note_retry(call.method, call.path, error, attempt, delay)
            await asyncio.sleep(delay)
            waited += delay

    # --- games ----------------------------------------------------------------------------------

    async def rules(self) -> RulesResponse:
        return await self.send(calls.rules())

    async def create_game(
        self, request: CreateGameRequest | Mapping[str, Any], *, token: str | None = None
    ) -> CreateGameResponse:
        return await self.send(calls.create_game(request), token)

    async def list_games(self, limit: int | None = None, cursor: str | None = None) -> GameList:
        return await self.send(calls.list_games(limit, cursor))

    async def game(self, game_id: str, *, token: str | None = None) -> GameSummary:
        return await self.send(calls.get_game(game_id), token)

    async def join(
        self,
        game_id: str,
        seat: int | None = None,
        *,
        name: str = "",
        invite_code: str | None = None,
        client_seed: str = "",
        token: str | None = None,
    ) -> JoinResponse:
        request = {"seat": seat, "name": name, "invite_code": invite_code, "client_seed": client_seed}
        return await self.send(
            calls.join(game_id, {k: v for k, v in request.items() if v is not None}), token
        )

    async def leave(self, game_id: str, *, token: str | None = None) -> LeaveResponse:
        return await self.send(calls.leave(game_id), token)

    async def rematch(
        self, game_id: str, *, client_seed: str = "", token: str | None = None
    ) -> RematchResponse:
        return await self.send(calls.rematch(game_id, client_seed), token)

    async def view(self, game_id: str, *, seat: int | None = None, token: str | None = None) -> ViewResponse:
        return await self.send(calls.view(game_id, seat), token)

    async def legal_actions(self, game_id: str, *, token: str | None = None) -> LegalActionsResponse:
        return await self.send(calls.legal_actions(game_id), token)

    async def act(
        self,
        game_id: str,
        action: BaseModel | Mapping[str, Any],
        *,
        expected_version: int | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
        token: str | None = None,
    ) -> ActionResponse:
        """Play ``action`` (a dict in the API's JSON form, or a model of ``schema.actions``). It
        carries ``idempotency_key`` (a fresh key when None) on every try: it is played once at most,
        and ``replayed`` says when the answer is the stored one of an earlier try."""
        return await self.send(calls.act(game_id, action, expected_version, seat, idempotency_key), token)

    async def replay_log(self, game_id: str, *, token: str | None = None) -> LogResponse:
        return await self.send(calls.replay_log(game_id), token)

    # --- accounts -------------------------------------------------------------------------------

    async def register_bot(self, name: str, contact: str | None = None) -> BotRegistered:
        return await self.send(calls.register_bot(name, contact))

    async def bot_me(self, *, token: str | None = None) -> BotStatus:
        return await self.send(calls.bot_me(), token)

    async def delete_bot(self, bot_id: str, *, token: str | None = None) -> None:
        await self.send(calls.delete_bot(bot_id), token)

    async def create_player(self, name: str = "", locale: str = "") -> PlayerCreated:
        return await self.send(calls.create_player(name, locale))

    async def me(self, *, token: str | None = None) -> Me:
        return await self.send(calls.me(), token)

    async def create_tournament(
        self, request: CreateTournamentRequest | Mapping[str, Any], *, token: str | None = None
    ) -> Tournament:
        return await self.send(calls.create_tournament(request), token)

    async def tournament(self, tournament_id: str) -> Tournament:
        return await self.send(calls.get_tournament(tournament_id))

    # --- streams --------------------------------------------------------------------------------

    def game_events(
        self,
        game_id: str,
        *,
        last_event_id: str | None = None,
        follow: bool = True,
        ndjson: bool = False,
        token: str | None = None,
    ) -> AsyncStream[EventEnvelope]:
        """The game's events as ``token``'s seat sees them (a spectator's without one); it ends after
        the match is over."""
        return AsyncStream(self, calls.game_events(game_id, follow), token, last_event_id, ndjson)

    def bot_turns(
        self,
        *,
        last_event_id: str | None = None,
        follow: bool = True,
        ndjson: bool = False,
        token: str | None = None,
    ) -> AsyncStream[BotNotice]:
        """The bot account's notices for all its games (``your_turn``, ``tournament_game``,
        ``game_finished``); the token is its API key."""
        return AsyncStream(self, calls.bot_stream(follow), token, last_event_id, ndjson)

    def my_events(
        self,
        *,
        last_event_id: str | None = None,
        follow: bool = True,
        ndjson: bool = False,
        token: str | None = None,
    ) -> AsyncStream[PlayerNotice]:
        """A player's notices (/v1/me/events); the token is the player's."""
        return AsyncStream(self, calls.my_events(follow), token, last_event_id, ndjson)

    def tournament_events(
        self,
        tournament_id: str,
        *,
        last_event_id: str | None = None,
        follow: bool = True,
        ndjson: bool = False,
    ) -> AsyncStream[TournamentEvent]:
        return AsyncStream(self, calls.tournament_events(tournament_id, follow), None, last_event_id, ndjson)


class AsyncStream(Generic[I]):
    """A stream that resumes by itself (:class:`atout.client.Stream`, async): ``async for`` its
    items. ``last_event_id`` is the id of the last item delivered; a new stream from it (this process
    or the next) resumes with no gap and no duplicate.

    A ``lagged`` or ``server_closing`` end, a broken connection, a 429 or 503 on (re)connecting:
    it reconnects after ``Retry-After`` (or the end's ``retry_after``, or a backoff), from
    ``last_event_id``, within the client's retry policy counted from the last item delivered, then
    raises :class:`ConnectionLost` (or the :class:`ApiError`). A ``resync`` end raises
    :class:`StreamResync`. Any other problem (401, 404, …) raises its :class:`ApiError` at once."""

    def __init__(
        self,
        client: AsyncClient,
        spec: calls.StreamSpec,
        token: str | None,
        last_event_id: str | None,
        ndjson: bool,
    ) -> None:
        self.client, self.spec, self.token, self.ndjson = client, spec, token, ndjson
        self.last_event_id = last_event_id

    async def __aiter__(self) -> AsyncIterator[I]:
        session = self.client.session
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            error: Exception | None = None
            retry_after: float | None = None
            status: int | None = None
            try:
                async with self.client._http.stream(
                    "GET",
                    self.spec.path,
                    params=self.spec.params(),
                    headers=session.stream_headers(
                        self.token, self.last_event_id, NDJSON if self.ndjson else SSE
                    ),
                    timeout=session.stream_timeout(),
                ) as response:
                    if response.status_code != 200:
                        await response.aread()
                        error = api_error(response)
                        status, retry_after = response.status_code, error.retry_after
                    else:
                        reader = FrameReader(self.ndjson)
                        async for line in response.aiter_lines():
                            frame = reader.feed(line)
                            if frame is None:
                                continue
                            end = end_of(frame)
                            if end is not None:
                                if end["type"] == "resync":
                                    raise StreamResync(end["code"], end["detail"], end.get("last_event_id"))
                                error = ConnectionLost(f"the stream ended: {end['code']}")
                                retry_after = reconnect_delay(frame, end)
                                break
                            item: I | None = decode_frame(self.spec.frame, frame.data)
                            if frame.id is not None:
                                self.last_event_id = frame.id
                            attempt, waited = 1, 0.0  # progress: a fresh budget
                            if item is not None:  # None: a type this client does not know, skipped
                                yield item
                        else:
                            if self.spec.ends_cleanly:
                                return
                            error = ConnectionLost("the stream was closed")
            except httpx.TransportError as failure:
                error = failure
            assert error is not None
            delay = session.retry.delay(attempt, waited, retry_after) if retryable(True, status) else None
            if delay is None:
                raise session.gave_up_stream(self.spec.path, error, attempt)
            session.note_retry("GET", self.spec.path, error, attempt, delay)
            await asyncio.sleep(delay)
            waited += delay


__all__ = ["AsyncClient", "AsyncStream"]
