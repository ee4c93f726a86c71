"""Card codes and their integer form (docs/rules.md ALL-6).

A card is a small int: ``suit * 11 + rank`` for the 44 suited cards (rank 0 is the four,
10 the ace) and 44/45 for the black and red jokers. A set of cards (a hand, the kitty,
the cards played) is a bitmask of those ints, so following suit is one ``&``.

``Record``, the base of the engine's immutable records (the actions, a trump table, a scored
hand: ints, masks and tuples of them), is here, in the module all the others import.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Final

SUITS: Final = "SCDH"
"""Suit letters in index order; S and C are black, D and H red (ALL-6)."""
RANKS: Final = "456789TJQKA"
"""Rank letters low to high; the index is the rank's natural order."""

BLACK_JOKER: Final = 44
RED_JOKER: Final = 45
JOKERS: Final = (BLACK_JOKER, RED_JOKER)
CARD_COUNT: Final = 46

CODES: Final[tuple[str, ...]] = (*tuple(r + s for s in SUITS for r in RANKS), "BJ", "RJ")
CARD_OF: Final[dict[str, int]] = {code: i for i, code in enumerate(CODES)}
BIT: Final[tuple[int, ...]] = tuple(1 << i for i in range(CARD_COUNT))
CARD_OF_BIT: Final[dict[int, int]] = {1 << i: i for i in range(CARD_COUNT)}


class Record:
    """An immutable record that pickles and copies as a call of its class with its fields.

    ``__match_args__`` names the fields in the constructor's order (a dataclass makes it; a plain
    class writes it). Compiled by mypyc, the usual way would not do: a native class's ``__new__``
    runs ``__init__`` (which wants its arguments), and its ``__setstate__`` sets the fields one by
    one, which a frozen dataclass refuses. Rebuilt by its constructor, a record unpickles and
    deep-copies alike in both builds, and a pickle of either build loads in the other (issue 36).
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        return type(self), tuple(getattr(self, name) for name in self.__match_args__)


def card(suit: int, rank: str) -> int:
    """The card of a suit index and a rank letter."""
    return suit * 11 + RANKS.index(rank)


def suit_of(c: int) -> int:
    """Natural suit index of a suited card (jokers have none: -1)."""
    return c // 11 if c < 44 else -1


def rank_of(c: int) -> int:
    """Natural rank index 0 (four) .. 10 (ace); jokers rank above every ace."""
    return c % 11 if c < 44 else 11 + (c - 44)


def same_colour_suit(s: int) -> int:
    """The other suit of the same colour: S<->C, D<->H (the bower / compere / jick suit)."""
    return s ^ 1


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= BIT[c]
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, low card int first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARD_OF_BIT[low])
        mask ^= low
    return out


def codes_of(mask: int) -> list[str]:
    return [CODES[c] for c in cards_of(mask)]


def popcount(mask: int) -> int:
    return mask.bit_count()
