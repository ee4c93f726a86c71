"""The cursor of the open games' pages: an opaque string a client sends back as it got it.

It carries the position of the last game of a page in the open index (service/store/games.py
``open_page``): a page starts after a position, not at an offset, so paging never shows a game twice
nor misses one that was open when it began. Opaque on purpose: clients must not build one, so the
position's form may change (a new prefix; the old one read for as long as a page can be held).
"""

from __future__ import annotations

import base64
import binascii
import json
import math

from service.base.problems import ProblemError
from service.store.keys import GAME_ID
from service.store.records import ListPosition

PREFIX = "o1."  # names this form of cursor
MAX_LENGTH = 200  # far above any cursor this module writes (about 60 characters)


def encode_cursor(position: ListPosition) -> str:
    """The cursor that resumes after ``position``."""
    raw = json.dumps([position.created_at, position.game_id], separators=(",", ":")).encode()
    return PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str, where: tuple[str, ...] = ("query", "cursor")) -> ListPosition:
    """The position a cursor names; 422 ``invalid_request`` for anything this module did not write
    (``where`` locates the parameter in the problem's ``errors``)."""
    position = _position(cursor) if len(cursor) <= MAX_LENGTH and cursor.startswith(PREFIX) else None
    if position is None:
        raise not_a_cursor(where)
    return position


def not_a_cursor(where: tuple[str, ...]) -> ProblemError:
    return ProblemError(
        "invalid_request",
        "cursor is not one this server gave: send the `next_cursor` of the previous page as it "
        "came, or none for the first page.",
        errors=[{"loc": list(where), "msg": "not a cursor of this list", "type": "value_error"}],
    )


def _json_of(body: str) -> object:
    try:
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("ascii"))
    except (binascii.Error, ValueError):  # bad base64, not ASCII, not JSON (all ValueError or its kin)
        return None


def _position(cursor: str) -> ListPosition | None:
    value = _json_of(cursor[len(PREFIX) :])
    match value:
        case [float() | int() as created_at, str() as game_id] if (
            not isinstance(created_at, bool) and math.isfinite(created_at) and GAME_ID.fullmatch(game_id)
        ):
            return ListPosition(float(created_at), game_id)
    return None


MY_GAMES_PREFIX = "m1."  # a player's list of games (service/games/players.py)


def encode_my_games_cursor(position: tuple[int, float, str]) -> str:
    """The cursor that resumes a player's list after ``position`` (rank, -changed at, game id)."""
    raw = json.dumps(list(position), separators=(",", ":")).encode()
    return MY_GAMES_PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_my_games_cursor(
    cursor: str, where: tuple[str, ...] = ("query", "cursor")
) -> tuple[int, float, str]:
    """The position a player's list cursor names; 422 ``invalid_request`` otherwise (``where`` as in
    :func:`decode_cursor`)."""
    value = _json_of(cursor[len(MY_GAMES_PREFIX) :]) if cursor.startswith(MY_GAMES_PREFIX) else None
    match value:
        case [int() as rank, float() | int() as changed, str() as game_id] if (
            len(cursor) <= MAX_LENGTH
            and rank in (0, 1, 2)
            and not isinstance(changed, bool)
            and math.isfinite(changed)
            and GAME_ID.fullmatch(game_id)
        ):
            return rank, float(changed), game_id
    raise not_a_cursor(where)
