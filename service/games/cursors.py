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
import re

from schema.pages import MAX_CURSOR
from service.base.problems import ProblemError
from service.store.keys import GAME_ID
from service.store.records import ListPosition

PREFIX = "o1."  # names this form of cursor
MAX_LENGTH = MAX_CURSOR  # the page model's bound (schema.pages): far above any cursor written here (~60)


def encode_cursor(position: ListPosition) -> str:
    """The cursor that resumes after ``position``."""
    raw = json.dumps([position.created_at, position.game_id], separators=(",", ":")).encode()
    return PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str, where: tuple[str, ...] = ("query", "cursor")) -> ListPosition:
    """The position a cursor names; 422 ``invalid_request`` for anything this module did not write
    (``where`` locates the parameter in the problem's ``errors``)."""
    position = _position(cursor)
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


BASE64URL = re.compile(r"[A-Za-z0-9_-]*")  # the alphabet this module writes, unpadded


def opaque_json(cursor: str, prefix: str, max_length: int = MAX_LENGTH) -> object:
    """The JSON a ``prefix`` + base64url cursor carries, or None for anything else; never raises.

    The cursors a client sends back (the open games', a player's list's) go through here, and the
    ladders' (service/games/ratings.py) keeps the same order, because the order is the defence: the
    length first (a cursor is at most ``max_length`` characters, so its JSON can neither be large nor
    nest deeper than about 75 levels, far below the parser's recursion limit), then the alphabet (no
    padding, whitespace or non-ASCII to be skipped or choked on), then base64, ASCII and JSON. Any
    decoding error (``binascii.Error``, ``UnicodeDecodeError``, ``ValueError``, ``TypeError``, and
    ``RecursionError`` should the limit ever be raised past the parser's) is "not a cursor": the
    caller answers 422, never a 500 with a traceback. The caller still matches the value's shape:
    this only parses."""
    if len(cursor) > max_length or not cursor.startswith(prefix):
        return None
    body = cursor[len(prefix) :]
    if not BASE64URL.fullmatch(body):
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("ascii"))
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, RecursionError):
        return None


def _position(cursor: str) -> ListPosition | None:
    match opaque_json(cursor, PREFIX):
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
    match opaque_json(cursor, MY_GAMES_PREFIX):  # the length first: a cursor nested 1,000 deep is 422
        case [int() as rank, float() | int() as changed, str() as game_id] if (
            rank in (0, 1, 2)
            and not isinstance(changed, bool)
            and math.isfinite(changed)
            and GAME_ID.fullmatch(game_id)
        ):
            return rank, float(changed), game_id
    raise not_a_cursor(where)
