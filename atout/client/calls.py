"""Each REST operation the client makes, described once as a :class:`Call`: its method and path,
its body (a model of ``schema/``, the models the OpenAPI document is generated from), whether it is
safe to send again, and the model its answer is read into. The sync and the async client only send
these; a stream is a :class:`StreamSpec`. The shapes are never written twice: a body given as a dict
is validated into the schema's model before it is sent (the API would refuse it anyway, 422)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, RootModel

from schema.games import (
    ActionRequest,
    ActionResponse,
    BotRegistered,
    BotStatus,
    BotStreamFrame,
    CreateGameRequest,
    CreateGameResponse,
    GameList,
    GameStreamFrame,
    GameSummary,
    JoinRequest,
    JoinResponse,
    LeaveResponse,
    LegalActionsResponse,
    LogResponse,
    RegisterBotRequest,
    RematchRequest,
    RematchResponse,
    RulesResponse,
    ViewResponse,
)
from schema.players import Me, NewPlayerRequest, PlayerCreated, PlayerStreamFrame
from schema.tournaments import CreateTournamentRequest, Tournament, TournamentStreamFrame

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Body = BaseModel | Mapping[str, Any]


def _answer(model: type[M]) -> Callable[[httpx.Response], M]:
    """An answer's decoder: the fields a newer service adds within /v1 are ignored (the models forbid
    them, so that the server's tests catch an undeclared field it sends)."""
    return lambda response: model.model_validate_json(response.content, extra="ignore")


def _nothing(response: httpx.Response) -> None:
    return None


def _model(model: type[M], body: Body) -> M:
    return body if isinstance(body, model) else model.model_validate(body)


def _json(body: BaseModel) -> Any:
    return body.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _id(value: str) -> str:
    """A path segment: an id as given, never a way out of its path (``/``, ``..`` are quoted)."""
    return quote(value, safe="")


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    decode: Callable[[httpx.Response], T]
    json: Any = None
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    safe: bool = False
    """Safe to send again after a 503 or a broken connection: a read, or a move with its key."""


def rules() -> Call[RulesResponse]:
    return Call("GET", "/v1/rules", _answer(RulesResponse), safe=True)


def create_game(request: CreateGameRequest | Mapping[str, Any]) -> Call[CreateGameResponse]:
    body = _model(CreateGameRequest, request)
    return Call("POST", "/v1/games", _answer(CreateGameResponse), _json(body))


def list_games(limit: int | None, cursor: str | None) -> Call[GameList]:
    params = {k: str(v) for k, v in (("limit", limit), ("cursor", cursor)) if v is not None}
    return Call("GET", "/v1/games", _answer(GameList), params=params, safe=True)


def get_game(game_id: str) -> Call[GameSummary]:
    return Call("GET", f"/v1/games/{_id(game_id)}", _answer(GameSummary), safe=True)


def join(game_id: str, request: JoinRequest | Mapping[str, Any]) -> Call[JoinResponse]:
    body = _json(_model(JoinRequest, request))
    return Call("POST", f"/v1/games/{_id(game_id)}/join", _answer(JoinResponse), body)


def leave(game_id: str) -> Call[LeaveResponse]:
    return Call("POST", f"/v1/games/{_id(game_id)}/leave", _answer(LeaveResponse), {})


def rematch(game_id: str, client_seed: str) -> Call[RematchResponse]:
    body = _json(RematchRequest(client_seed=client_seed))
    return Call("POST", f"/v1/games/{_id(game_id)}/rematch", _answer(RematchResponse), body)


def view(game_id: str, seat: int | None) -> Call[ViewResponse]:
    params = {} if seat is None else {"seat": str(seat)}
    return Call("GET", f"/v1/games/{_id(game_id)}/view", _answer(ViewResponse), params=params, safe=True)


def legal_actions(game_id: str) -> Call[LegalActionsResponse]:
    return Call("GET", f"/v1/games/{_id(game_id)}/actions", _answer(LegalActionsResponse), safe=True)


def act(
    game_id: str,
    action: BaseModel | Mapping[str, Any],
    expected_version: int | None,
    seat: int | None,
    idempotency_key: str | None,
) -> Call[ActionResponse]:
    """A move, always with an ``Idempotency-Key`` (a fresh one unless given): every retry of this
    call sends the same key, so the move is played at most once (a retry's answer is the first
    one, ``replayed``)."""
    fields: dict[str, Any] = {
        "action": action.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if isinstance(action, BaseModel)
        else dict(action)
    }
    if expected_version is not None:
        fields["expected_version"] = expected_version
    if seat is not None:
        fields["seat"] = seat
    body = _json(ActionRequest.model_validate(fields))
    key = idempotency_key or f"atout-{uuid.uuid4().hex}"
    headers = {"Idempotency-Key": key}
    return Call(
        "POST", f"/v1/games/{_id(game_id)}/actions", _answer(ActionResponse), body, headers=headers, safe=True
    )


def replay_log(game_id: str) -> Call[LogResponse]:
    return Call("GET", f"/v1/games/{_id(game_id)}/log", _answer(LogResponse), safe=True)


def register_bot(name: str, contact: str | None) -> Call[BotRegistered]:
    request = {"name": name} | ({"contact": contact} if contact is not None else {})
    return Call("POST", "/v1/bots", _answer(BotRegistered), _json(RegisterBotRequest.model_validate(request)))


def bot_me() -> Call[BotStatus]:
    return Call("GET", "/v1/bots/me", _answer(BotStatus), safe=True)


def delete_bot(bot_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/bots/{_id(bot_id)}", _nothing, safe=True)


def create_player(name: str, locale: str) -> Call[PlayerCreated]:
    body = _json(NewPlayerRequest(name=name, locale=locale))
    return Call("POST", "/v1/players", _answer(PlayerCreated), body)


def me() -> Call[Me]:
    return Call("GET", "/v1/me", _answer(Me), safe=True)


def create_tournament(request: CreateTournamentRequest | Mapping[str, Any]) -> Call[Tournament]:
    body = _json(_model(CreateTournamentRequest, request))
    return Call("POST", "/v1/tournaments", _answer(Tournament), body)


def get_tournament(tournament_id: str) -> Call[Tournament]:
    return Call("GET", f"/v1/tournaments/{_id(tournament_id)}", _answer(Tournament), safe=True)


# --- streams ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamSpec:
    """A stream: its path, the root model of one frame (a typed item, or the ``StreamEnd``), and
    whether a clean end of the connection is its end (a game's events end after the match; an
    account's stream that follows never ends by itself: a cut is a drop, resumed)."""

    path: str
    frame: type[RootModel[Any]]
    ends_cleanly: bool
    follow: bool = True

    def params(self) -> dict[str, str]:
        return {} if self.follow else {"follow": "false"}


def game_events(game_id: str, follow: bool) -> StreamSpec:
    return StreamSpec(f"/v1/games/{_id(game_id)}/events", GameStreamFrame, True, follow)


def bot_stream(follow: bool) -> StreamSpec:
    return StreamSpec("/v1/bots/me/stream", BotStreamFrame, not follow, follow)


def my_events(follow: bool) -> StreamSpec:
    return StreamSpec("/v1/me/events", PlayerStreamFrame, not follow, follow)


def tournament_events(tournament_id: str, follow: bool) -> StreamSpec:
    return StreamSpec(f"/v1/tournaments/{_id(tournament_id)}/events", TournamentStreamFrame, True, follow)
