"""An engine match played one action id at a time: what the OpenSpiel, PettingZoo and Gymnasium
games share.

``Table`` holds an ``engine.Match`` and the cards the seat to act has picked so far for its discard
(a discard of N cards is N picks, atout.learn.spaces). An *episode* is ``hands`` hands (1 by
default; None: until the match is over, or truncated after the arena's ``MAX_HANDS``); it ends as
soon as the last of them is scored, before the engine's next deal is looked at. The engine's
``push`` does the rules; this class only translates ids and keeps the score of the episode.

Points of a hand, per seat (:func:`hand_points`): the team's (Le 500, Le Rough) or the seat's
(euchre) points as the engine scores the hand (``result["points"]``), 0 for a void hand, and for
Le Rough's contract of 100, which decides the match and scores nothing (RG-14), what an ordinary
contract would have scored (made: the card points taken; failed: -100), so that it is worth neither
nothing nor everything to a learner. The *margin* (:func:`margins`) is a seat's points minus the
mean of the other side's (Le 500, Le Rough: the other team's; euchre: the four other seats'): it
sums to zero over the seats, which suits search (OpenSpiel's returns).
"""

from __future__ import annotations

import random
from typing import Any

import engine
from atout.learn.encoding import Mask, Vector, mask_of_ids, observation_of_match
from atout.learn.spaces import JSON, action_space, legal_ids_of_match
from workers.arena.base import MAX_HANDS
from workers.bots.action_ids import apply_id

GAME_BID = 100
"""RG-9: Le Rough's contract that decides the match."""

MAX_MARGIN = {"five_hundred": 520.0, "rough": 200.0, "euchre5": 5.0}
"""The largest margin of a hand: 10 no trump (F5-12), a failed 100 against 100 card points, a march."""


def hand_points(game: str, result: JSON) -> list[float]:
    """Each seat's points of a scored hand (the module's docstring says which)."""
    players = engine.game(game).players
    if result.get("void"):
        return [0.0] * players
    points = [float(p) for p in result["points"]]
    if game == "rough" and result["contract"]["points"] == GAME_BID:
        team = result["taker"] % 2
        points = [0.0, 0.0]
        points[team] = float(result["card_points"][team]) if result["made"] else -float(GAME_BID)
        points[1 - team] = float(result["card_points"][1 - team])
    if len(points) == 2:
        return [points[s % 2] for s in range(players)]
    return points


def margins(game: str, points: list[float]) -> list[float]:
    """Each seat's points minus the mean of its opponents' (zero-sum over the seats)."""
    n = len(points)
    if engine.game(game).teams:
        return [points[s] - points[(s + 1) % n] for s in range(n)]
    total = sum(points)
    return [p - (total - p) / (n - 1) for p in points]


class Table:
    """A match stepped by action ids; ``points`` sums each seat's points of the episode's hands."""

    def __init__(self, match: engine.Match, hands: int | None = 1) -> None:
        if hands is not None and hands < 1:
            raise ValueError(f"an episode is at least one hand, not {hands}")
        self.match = match
        self.game: str = match.game
        self.space = action_space(self.game)
        self.players: int = match.players
        self.hands = hands
        self.picked: list[str] = []
        self.points = [0.0] * self.players
        self.hands_played = 0
        self.last_result: JSON | None = None

    @classmethod
    def new(cls, game: str, seed: int, options: JSON | None = None, hands: int | None = 1) -> Table:
        """A match of ``game`` dealt from ``seed`` (the engine's shuffle and first dealer)."""
        return cls(engine.new_match(game, seed=seed, options=options), hands)

    def copy(self) -> Table:
        """A copy whose match can be played on alone (the engine shares what a step replaces)."""
        other = Table.__new__(Table)
        other.__dict__.update(self.__dict__)
        other.match = self.match.copy()
        other.picked = self.picked[:]
        other.points = self.points[:]
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()  # OpenSpiel clones a Python state with copy.deepcopy

    @property
    def done(self) -> bool:
        return self.match.to_act is None or self.hands_played >= (self.hands or MAX_HANDS)

    @property
    def truncated(self) -> bool:
        """A whole match (``hands=None``) stopped unfinished after ``MAX_HANDS`` hands (the arena's
        bound: hands nobody bids are dealt again, F5-9, RG-8, so a match may never end)."""
        return self.hands is None and self.match.to_act is not None and self.hands_played >= MAX_HANDS

    @property
    def to_act(self) -> int | None:
        return None if self.done else self.match.to_act

    def view(self, seat: int) -> JSON:
        return engine.view(self.match, seat)

    def legal_actions(self, seat: int) -> list[JSON]:
        """The engine's legal actions of ``seat`` ([] when it is not its turn or the episode is over)."""
        return engine.legal_actions(self.match, seat) if seat == self.to_act else []

    def picks_of(self, seat: int) -> list[str]:
        """The cards ``seat`` has picked for its discard so far (hidden from the others)."""
        return self.picked if seat == self.to_act else []

    def legal(self) -> list[int]:
        """The legal ids of the seat to act, ascending."""
        seat = self.to_act
        return [] if seat is None else legal_ids_of_match(self.match, seat, self.picked)

    def observe(self, seat: int) -> tuple[Vector, Mask]:
        """Observation and mask of ``seat`` (its own picks in it; an all-zero mask off its turn),
        read from the match (workers.bots.observe: the same vector as from ``engine.view``)."""
        picks = self.picks_of(seat)
        ids = legal_ids_of_match(self.match, seat, picks) if seat == self.to_act else []
        return observation_of_match(self.match, seat, picks), mask_of_ids(self.game, ids)

    def step(self, index: int) -> None:
        """The seat to act takes the id ``index`` (a pick completes a discard at its last card)."""
        seat = self.to_act
        if seat is None:
            raise ValueError("the episode is over: nobody acts")
        if index not in self.legal():
            raise ValueError(f"action id {index} ({self.space.action(index)}) is not legal now")
        hand = self.match.hand_number
        if apply_id(self.match, seat, index, self.picked):
            self._scored(hand)

    def push(self, seat: int, action: JSON) -> None:
        """An engine action (a discard whole), then the scoring of a hand it ends."""
        hand = self.match.hand_number
        engine.push(self.match, seat, action)
        self._scored(hand)

    def _scored(self, hand: int) -> None:
        """After an engine action taken during hand number ``hand``: add up that hand if it ended."""
        if self.match.hand_number != hand or self.match.over:
            prev = self.match.prev
            assert prev is not None
            self.last_result = prev.result
            for s, p in enumerate(hand_points(self.game, prev.result)):
                self.points[s] += p
            self.hands_played += 1

    def margins(self) -> list[float]:
        return margins(self.game, self.points)

    def random_id(self, rng: random.Random) -> int:
        legal = self.legal()
        return legal[int(rng.random() * len(legal))]
