"""A seat's observation as a fixed-size float32 vector, and its legal actions as a mask.

Computed from what the seat sees and nothing else: the view ``engine.view(match, seat)`` returns,
which is also the ``view`` of the API's answers (``GET /v1/games/{id}/view``, a bot stream's
``your_turn``, a move's ``next_turn``). :func:`observation` takes either the view itself or a whole
answer holding it (``{"view": {...}, "legal_actions": [...]}``), so a policy trained on the engine
plays the live service unchanged; tests/atout/test_learn_live.py checks both give the same
vectors, and that hidden cards change nothing.

Seats are *relative*: index 0 of every per-seat field is the observing seat, 1 the seat on its left
(ALL-1), and so on; per-team fields are (own team, other team). Every field lies in [0, 1] but the
scores, which lie in [-1, 1]. :func:`describe` prints the fields of a game with their offsets,
:func:`layout` gives them as :class:`Field` records.

The encoding itself is ``workers.bots.observe`` (standard library only, compiled with the bots, so
that a bot plays a policy in pure Python and self-play encodes at engine speed); this module gives
its lists as numpy arrays, the form the learning frameworks take: float32 vectors, int8 masks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

import engine
from atout.learn.spaces import JSON, action_space
from workers.bots import observe
from workers.bots.observe import PHASES, TRUMPS, Field, describe, layout, size, view_of

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


def observation(view_or_answer: JSON, picked: Sequence[str] = ()) -> Vector:
    """The observation vector of the seat whose view this is (:func:`describe`), ``picked`` being
    the cards it has picked so far for a discard in progress (none otherwise)."""
    game = view_of(view_or_answer)["kind"]
    return _vector(game, *observe.sparse_observation(view_or_answer, picked))


def observation_of_match(m: engine.Match, seat: int, picked: Sequence[str] = ()) -> Vector:
    """:func:`observation` of ``engine.view(m, seat)``, read from the match (faster: no view built)."""
    return _vector(m.game, *observe.sparse_observation_of_match(m, seat, picked))


def _vector(game: str, ones: list[int], values: list[float]) -> Vector:
    """The vector of the indices of its ones and its values at ``count_columns(game)``."""
    out = np.zeros(size(game), np.float32)
    out[np.fromiter(ones, np.intp, len(ones))] = 1.0
    out[_count_columns(game)] = values
    return out


@cache
def _count_columns(game: str) -> npt.NDArray[np.intp]:
    return np.array(observe.count_columns(game), np.intp)


def mask_of_ids(game: str, ids: Sequence[int]) -> Mask:
    """The int8 mask over ``game``'s action space holding 1 at ``ids``."""
    mask = np.zeros(action_space(game).size, np.int8)
    mask[list(ids)] = 1
    return mask


def legal_mask(game: str, legal_actions: Sequence[JSON] | None, picked: Sequence[str] = ()) -> Mask:
    """1 for each legal id of ``game``'s action space (spaces.ActionSpace), 0 elsewhere, from the
    seat's legal actions (``engine.legal_actions`` or an API answer's ``legal_actions``; None or []
    when it is not the seat's turn: all zeros) and the cards it has picked for its discard."""
    return mask_of_ids(game, action_space(game).legal(legal_actions or (), picked))


def encode(answer: JSON, picked: Sequence[str] = ()) -> tuple[Vector, Mask]:
    """Observation and mask from one API answer (``{"view": ..., "legal_actions": ...}``, as
    ``GET /v1/games/{id}/view``, ``your_turn`` and ``next_turn`` give them)."""
    v = view_of(answer)
    return observation(v, picked), legal_mask(v["kind"], answer.get("legal_actions"), picked)


Policy = Callable[[Vector, Mask], int]
"""What :func:`choose` asks: an action id of the mask for an observation."""


def choose(answer: JSON, policy: Policy) -> JSON:
    """The engine/API action a policy picks for an answer holding the view and the legal actions:
    ``policy(observation, mask) -> id`` is asked once, or once per card of a discard (the picks so far
    in the observation), and the picks are sent as one ``discard`` (``workers.bots.observe.choose``,
    which takes a policy over lists instead, raises ``ValueError`` on an id outside the mask)."""
    game = view_of(answer)["kind"]

    def on_arrays(x: list[float], ids: list[int]) -> int:
        return int(policy(np.array(x, np.float32), mask_of_ids(game, ids)))

    return observe.choose(answer, on_arrays)


__all__ = [
    "PHASES",
    "TRUMPS",
    "Field",
    "Mask",
    "Policy",
    "Vector",
    "choose",
    "describe",
    "encode",
    "layout",
    "legal_mask",
    "mask_of_ids",
    "observation",
    "observation_of_match",
    "size",
    "view_of",
]
