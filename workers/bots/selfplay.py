"""Many matches stepped by action ids at once: the compiled core of self-play (atout.learn.vector).

A learner's batch of N tables spends its time per table and step on a few things: checking the id,
applying it to the engine's match (a discard as picks), and encoding the next seat's observation
and legal ids. Done table by table in Python, the loop itself costs as much as the engine; here it
is one compiled call per batch for each (:meth:`Tables.step`, :meth:`Tables.write`), over the
engine's records (workers.bots.action_ids) and observation writer (workers.bots.observe). What a
learner decides (rewards, the end of an episode, dealing a new match) stays with the caller, which
is told which tables scored a hand.
"""

from __future__ import annotations

from typing import Any

from engine.match import Match

from .action_ids import apply_id
from .observe import write_turn


class Tables:
    """The matches of a batch (``matches[i]``, set by the caller), and for each its seat to act,
    the cards picked so far for a discard in progress and the legal ids of that seat, as of the
    last :meth:`write`."""

    def __init__(self, matches: list[Match]) -> None:
        self.matches = matches
        count = len(matches)
        self.picked: list[list[str]] = [[] for _ in range(count)]
        self.legal: list[list[int]] = [[] for _ in range(count)]
        self.seats: list[int] = [0] * count

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled and deep-copied by its parts: compiled, the class is rebuilt by a call, not field
        by field (issue 36: a vector env shipped to a subprocess or kept in a checkpoint)."""
        return rebuilt, (self.matches, self.picked, self.legal, self.seats)

    def illegal(self, ids: list[int]) -> int:
        """The first table whose id is not one of its legal ids, -1 when every id is legal."""
        for i in range(len(ids)):
            if ids[i] not in self.legal[i]:
                return i
        return -1

    def step(self, ids: list[int]) -> list[int]:
        """Every table's seat to act takes its id (check them first: :meth:`illegal`); the tables
        whose hand was scored by it, in order (their match's ``prev`` holds the hand)."""
        scored: list[int] = []
        for i in range(len(ids)):
            m = self.matches[i]
            hand = m.hand_number
            if apply_id(m, self.seats[i], ids[i], self.picked[i]) and (m.hand_number != hand or m.over):
                scored.append(i)
        return scored

    def write(self, ones: list[int], counts: list[int], mask: list[int]) -> None:
        """Row ``i`` of the batch for the seat to act at every table ``i``: its observation (ones and
        counts) and its legal ids appended (workers.bots.observe.write_turn). Every match must have
        a seat to act (a finished one is replaced first)."""
        for i in range(len(self.matches)):
            m = self.matches[i]
            seat = m.to_act
            if seat is None:
                raise ValueError(f"table {i}: the match is over, deal a new one before writing")
            self.seats[i] = seat
            self.legal[i] = write_turn(m, seat, self.picked[i], i, ones, counts, mask)


def rebuilt(
    matches: list[Match], picked: list[list[str]], legal: list[list[int]], seats: list[int]
) -> Tables:
    """The :class:`Tables` a pickle holds."""
    tables = Tables(matches)
    tables.picked, tables.legal, tables.seats = picked, legal, seats
    return tables
