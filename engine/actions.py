"""Actions: small typed records with exactly one JSON form each.

REST, GraphQL, the bots and the replay log all speak the JSON form; the engine works on
these records. ``parse`` is the only door from JSON in, and it refuses anything malformed
with ``IllegalAction(code="malformed_action")`` rather than a KeyError or TypeError.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import CARD_OF, CODES, SUITS, Record, cards_of, mask_of
from .errors import IllegalAction

JSON = dict[str, Any]
DENOMINATIONS: Final = ("S", "C", "D", "H", "NT")
"""Le 500 bid denominations, low to high (F5-8)."""


@dataclass(frozen=True, slots=True)
class Pass(Record):
    def to_json(self) -> JSON:
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class TrickBid(Record):
    """Le 500: a number of tricks and a denomination (F5-8)."""

    tricks: int
    denomination: int  # index into DENOMINATIONS

    def to_json(self) -> JSON:
        return {"type": "bid", "tricks": self.tricks, "suit": DENOMINATIONS[self.denomination]}

    @property
    def rank(self) -> int:
        """Total order of bids: more tricks, then higher denomination (F5-8)."""
        return self.tricks * 5 + self.denomination


@dataclass(frozen=True, slots=True)
class PointBid(Record):
    """Le Rough: a number of card points, 70..100 by fives (RG-6)."""

    points: int

    def to_json(self) -> JSON:
        return {"type": "bid", "points": self.points}


@dataclass(frozen=True, slots=True)
class Keep(Record):
    """Le Rough: the dealer takes the highest bid over at the same value (RG-7)."""

    def to_json(self) -> JSON:
        return {"type": "keep"}


@dataclass(frozen=True, slots=True)
class Discard(Record):
    """The taker's discards, as a card mask (F5-10, RG-10)."""

    cards: int

    def to_json(self) -> JSON:
        return {"type": "discard", "cards": sorted(CODES[c] for c in cards_of(self.cards))}


@dataclass(frozen=True, slots=True)
class Play(Record):
    """A card to the trick; ``no_trump`` only on the Rough taker's first lead (RG-11)."""

    card: int
    no_trump: bool = False

    def to_json(self) -> JSON:
        out: JSON = {"type": "play", "card": CODES[self.card]}
        if self.no_trump:
            out["no_trump"] = True
        return out


@dataclass(frozen=True, slots=True)
class OrderUp(Record):
    """Euchre round 1: accept the upcard's suit as trump (E5-5)."""

    def to_json(self) -> JSON:
        return {"type": "order_up"}


@dataclass(frozen=True, slots=True)
class Exchange(Record):
    """Euchre: the dealer takes the upcard and discards ``card`` face down (E5-5)."""

    card: int

    def to_json(self) -> JSON:
        return {"type": "exchange", "discard": CODES[self.card]}


@dataclass(frozen=True, slots=True)
class NameTrump(Record):
    """Euchre round 2: name a suit other than the turned-down one (E5-6)."""

    suit: int

    def to_json(self) -> JSON:
        return {"type": "name_trump", "suit": SUITS[self.suit]}


@dataclass(frozen=True, slots=True)
class CallPartner(Record):
    """Euchre: the maker names a card; its holder is his secret partner (E5-7)."""

    card: int

    def to_json(self) -> JSON:
        return {"type": "call_partner", "card": CODES[self.card]}


@dataclass(frozen=True, slots=True)
class GoAlone(Record):
    def to_json(self) -> JSON:
        return {"type": "go_alone"}


Action = (
    Pass
    | TrickBid
    | PointBid
    | Keep
    | Discard
    | Play
    | OrderUp
    | Exchange
    | NameTrump
    | CallPartner
    | GoAlone
)


@dataclass(frozen=True, slots=True)
class DiscardTemplate(Record):
    """A combinatorial legal action: choose ``count`` of the cards of the mask ``cards``.

    Never enumerated (a choice of 6 of 16 cards is 8,008 actions): ``legal_actions`` shows it as
    ``{"type": "discard", "count": n, "choices": [...]}``; the answer is a ``Discard``.
    """

    count: int
    cards: int

    def to_json(self) -> JSON:
        return {
            "type": "discard",
            "count": self.count,
            "choices": sorted(CODES[c] for c in cards_of(self.cards)),
        }


Move = Action | DiscardTemplate
"""What ``legal_moves`` offers: a concrete action, or the discard template."""

ACTION_TYPES: Final = frozenset(
    {Pass, TrickBid, PointBid, Keep, Discard, Play, OrderUp, Exchange, NameTrump, CallPartner, GoAlone}
)

PASS: Final = Pass()
KEEP: Final = Keep()
ORDER_UP: Final = OrderUp()
GO_ALONE: Final = GoAlone()
PLAY: Final[tuple[Play, ...]] = tuple(Play(c) for c in range(len(CODES)))
PLAY_NO_TRUMP: Final[tuple[Play, ...]] = tuple(Play(c, True) for c in range(len(CODES)))
EXCHANGE: Final[tuple[Exchange, ...]] = tuple(Exchange(c) for c in range(len(CODES)))
CALL: Final[tuple[CallPartner, ...]] = tuple(CallPartner(c) for c in range(len(CODES)))
NAME: Final[tuple[NameTrump, ...]] = tuple(NameTrump(s) for s in range(4))


_PLAYS: dict[int, list[Move]] = {}


def plays_of(mask: int) -> list[Move]:
    """The play actions of a mask of cards, memoised: the hottest list of a playout.

    Callers must not mutate the list; the memo is dropped whole when it grows large.
    """
    plays = _PLAYS.get(mask)
    if plays is None:
        if len(_PLAYS) > 200_000:
            _PLAYS.clear()
        plays = _PLAYS[mask] = [PLAY[c] for c in cards_of(mask)]
    return plays


def _malformed(template: str, **params: object) -> IllegalAction:
    return IllegalAction(template, rule="ALL-6", code="malformed_action", **params)


def _card(obj: JSON, key: str) -> int:
    code = obj.get(key)
    if isinstance(code, str):
        c = CARD_OF.get(code)  # the usual, upper-case code: one lookup
        if c is not None:
            return c
    if not isinstance(code, str) or code.upper() not in CARD_OF:
        raise _malformed(
            "'{key}' must be a card code like 'TS' or 'BJ' "
            "(rank A K Q J T 9 8 7 6 5 4, then suit S C D H), got {value!r}",
            key=key,
            value=code,
        )
    return CARD_OF[code.upper()]


def _int(obj: JSON, key: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _malformed("'{key}' must be a whole number, got {value!r}", key=key, value=value)
    return value


def _suit(obj: JSON, key: str, allowed: tuple[str, ...]) -> int:
    value = obj.get(key)
    if not isinstance(value, str) or value.upper() not in allowed:
        raise _malformed(
            "'{key}' must be one of {allowed}, got {value!r}",
            key=key,
            allowed=", ".join(allowed),
            value=value,
        )
    return allowed.index(value.upper())


def parse(obj: object) -> Action:
    """The action record of a JSON action, or ``IllegalAction`` if it is malformed."""
    if isinstance(obj, dict):  # the public path's usual case: first
        return _from_json(obj)
    if isinstance(
        obj,
        (Pass, TrickBid, PointBid, Keep, Discard, Play, OrderUp, Exchange, NameTrump, CallPartner, GoAlone),
    ):
        return obj
    raise _malformed("an action is a JSON object with a 'type', got {kind}", kind=type(obj).__name__)


def _from_json(obj: JSON) -> Action:
    kind = obj.get("type")
    if kind == "play":  # most actions of a game: first
        no_trump = obj.get("no_trump", False)
        if no_trump is False:
            return PLAY[_card(obj, "card")]
        if not isinstance(no_trump, bool):
            raise _malformed("'no_trump' must be true or false, got {value!r}", value=no_trump)
        return PLAY_NO_TRUMP[_card(obj, "card")]
    if kind == "pass":
        return PASS
    if kind == "bid":
        if "points" in obj:
            return PointBid(_int(obj, "points"))
        if "tricks" in obj:
            return TrickBid(_int(obj, "tricks"), _suit(obj, "suit", DENOMINATIONS))
        raise _malformed("a bid needs 'points' (Le Rough) or 'tricks' and 'suit' (Le 500)")
    if kind == "keep":
        return KEEP
    if kind == "discard":
        cards = obj.get("cards")
        if not isinstance(cards, list):
            raise _malformed("'cards' must be a list of card codes")
        parsed = [_card({"card": c}, "card") for c in cards]
        if len(set(parsed)) != len(parsed):
            raise _malformed("'cards' names the same card twice")
        return Discard(mask_of(parsed))
    if kind == "order_up":
        return ORDER_UP
    if kind == "exchange":
        return EXCHANGE[_card(obj, "discard")]
    if kind == "name_trump":
        return NAME[_suit(obj, "suit", tuple(SUITS))]
    if kind == "call_partner":
        return CALL[_card(obj, "card")]
    if kind == "go_alone":
        return GO_ALONE
    raise _malformed(
        "unknown action type {kind!r}; expected one of pass, bid, keep, discard, play, "
        "order_up, exchange, name_trump, call_partner, go_alone",
        kind=kind,
    )
