"""Tournaments on duplicate deals: pairings, each game's committed key, scoring and standings.

Pure and stdlib only, so that the service (which plays each game as a real game, with bot
streams and turn timers) and ``atout arena --tournament`` (which plays it in-process) pair,
key and score a tournament with the very same code, and a bot author's local figures mean what
the service's standings mean.

Games. Only the partnership games, Le 500 and Le Rough (F5-2, RG-2): an entrant holds one
team's two seats, so a pairing is two entrants, and the duplicate deal swaps the teams: game 1
has the pairing's first entrant at seats 0+2, game 2 (same key, so the very same hands, hand
by hand, docs/fairness.md) has it at 1+3. Five-handed euchre has no fixed teams (E5-2): a lone
player against four would need five entrants per table and five seatings per deal to cancel the
luck, so tournaments refuse it (``TournamentError``) rather than score it unfairly.

Keys. A tournament has one key ``T`` (32 random bytes, or an administrator's whole number),
its commitment ``SHA-256(T)`` published when it is created and ``T`` revealed when it ends.
The match key of the games of deal ``d`` at table ``t`` of round ``r`` is::

    K = HMAC-SHA256(T, "atout-tournament/v1" || u32be(r) || u32be(t) || u32be(d))

so every game's match commitment, hence every hand it dealt, follows from ``T`` (``verify``).
Both seatings of a deal share ``K``: that is what makes them duplicates. No seat sends a client
seed (the organiser seats every entrant), so the deals are ``K``'s alone.

Duplicates and memory. In a duplicate deal each entrant holds both halves of the same cards, one
half a game: an entrant that remembers (or reads both games at once, as they run side by side)
knows its opponents' hands. Luck cancels only because the same two entrants see the same cards,
so the format cannot both cancel luck within a pairing and hide a deal from an entrant. Duplicate
is for entrants trusted not to remember: built-in bots (a fresh player per seat and game) and an
organiser's own bots. A tournament of strangers' bots is played with ``duplicate=False``: each
seating gets its own key (the same derivation with the seating appended, ``SEATING_LABEL``), no
entrant sees any deal twice, and the luck is left to the intervals (wider for the same games).

Scoring. An entrant's points of a game are its team's score minus the other team's, per hand
played (a *deal* of the cards): matches of different lengths weigh alike and a lucky hand is
cancelled by its duplicate. The unit of evidence is a duplicate deal (both seatings averaged),
so an entrant's mean points per deal has a 95% interval from Student's t over its deals. Wins
(a tie half) are kept beside it; a game an entrant let the server auto-play (``flagged``) still
counts, and is flagged in the standings.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

PAIR_GAMES = ("five_hundred", "rough")
"""The games a tournament can be played in: a team's two seats are one entrant's."""
FORMATS = ("round_robin", "swiss")
KEY_LABEL = b"atout-tournament/v1"
SEATING_LABEL = b"atout-tournament/v1/seating"
"""Not duplicate: ``K = HMAC-SHA256(T, SEATING_LABEL || u32be(r) || u32be(t) || u32be(d) || u32be(s))``."""
MAX_ENTRANTS = 64
MAX_ROUNDS = 64
MAX_DEALS = 16
SEATINGS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))
"""The seats of a pairing's first entrant in game 1 and game 2 of a duplicate deal."""

Format = Literal["round_robin", "swiss"]
Winner = Literal["a", "b", "tie"]


class TournamentError(ValueError):
    """A tournament cannot be made as asked (game, format, entrants, rounds, deals)."""


def check(game: str, fmt: str, entrants: int, rounds: int | None, deals: int) -> int:
    """The number of rounds a valid request plays; TournamentError says what is wrong."""
    if game not in PAIR_GAMES:
        raise TournamentError(f"tournaments are played in {' and '.join(PAIR_GAMES)} only, not {game!r}")
    if fmt not in FORMATS:
        raise TournamentError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if not 2 <= entrants <= MAX_ENTRANTS:
        raise TournamentError(f"a tournament has 2 to {MAX_ENTRANTS} entrants, not {entrants}")
    if not 1 <= deals <= MAX_DEALS:
        raise TournamentError(f"a pairing plays 1 to {MAX_DEALS} duplicate deals, not {deals}")
    full = entrants - 1 if entrants % 2 == 0 else entrants
    if fmt == "round_robin":
        if rounds is not None and rounds != full:
            raise TournamentError(f"a round robin of {entrants} entrants has {full} rounds, not {rounds}")
        return full
    if rounds is None or not 1 <= rounds <= min(full, MAX_ROUNDS):
        raise TournamentError(
            f"a Swiss tournament of {entrants} entrants has 1 to {min(full, MAX_ROUNDS)} rounds"
        )
    return rounds


# --- keys ------------------------------------------------------------------------------------


def new_key() -> bytes:
    return secrets.token_bytes(32)


def key_of_int(seed: int) -> bytes:
    """A tournament key from a whole number (the arena, tests): public, whoever knows it knows every deal."""
    return b"atout-tournament-int-seed:" + str(seed).encode()


def commitment(key: bytes) -> str:
    """Published when the tournament is created; the key itself only when it ends."""
    return hashlib.sha256(key).hexdigest()


def game_key(key: bytes, round_no: int, table: int, deal: int, seating: int | None = None) -> bytes:
    """The match key of both seatings of one duplicate deal, or with ``seating`` of that seating alone
    (a tournament that is not duplicate; module docstring)."""
    if seating is None:
        message = KEY_LABEL + struct.pack(">III", round_no, table, deal)
    else:
        message = SEATING_LABEL + struct.pack(">IIII", round_no, table, deal, seating)
    return hmac.new(key, message, hashlib.sha256).digest()


def verify(
    key: bytes,
    published: str,
    round_no: int,
    table: int,
    deal: int,
    match_commitment: str,
    seating: int | None = None,
) -> bool:
    """True when ``key`` is the committed tournament key and a game's match commitment follows from it
    (``seating``: the game's seating, for a tournament that is not duplicate)."""
    if not hmac.compare_digest(commitment(key), published):
        return False
    derived = hashlib.sha256(game_key(key, round_no, table, deal, seating)).hexdigest()
    return hmac.compare_digest(derived, match_commitment)


# --- pairings --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """Two entrants (indices into the entry list) at one table of one round; ``a`` holds 0+2 first."""

    round_no: int
    table: int
    a: int
    b: int


@dataclass(frozen=True)
class GameSpec:
    """One game of a pairing: the duplicate deal it plays and which seats each entrant holds."""

    pairing: Pairing
    deal: int
    seating: int
    """0: ``a`` at seats 0+2; 1: ``a`` at 1+3 (the same hands, the teams swapped)."""
    key: bytes

    def seats_of(self, entrant: int) -> tuple[int, int]:
        first = SEATINGS[self.seating]
        return first if entrant == self.pairing.a else SEATINGS[1 - self.seating]


def round_robin(entrants: int, round_no: int) -> list[Pairing]:
    """Round ``round_no`` (from 1) of the circle method: everyone meets everyone once (odd: one sits out)."""
    ids: list[int | None] = list(range(entrants)) + ([None] if entrants % 2 else [])
    n = len(ids)
    if not 1 <= round_no <= n - 1:
        raise TournamentError(f"a round robin of {entrants} entrants has no round {round_no}")
    turn = round_no - 1
    rotated = [ids[0], *(ids[1:][-turn:] + ids[1:][:-turn] if turn else ids[1:])]
    pairs: list[Pairing] = []
    for i in range(n // 2):
        x, y = rotated[i], rotated[n - 1 - i]
        if x is None or y is None:
            continue
        a, b = (x, y) if (i + round_no) % 2 else (y, x)  # who sits 0+2 first alternates
        pairs.append(Pairing(round_no, len(pairs), a, b))
    return pairs


def swiss(
    entrants: int,
    round_no: int,
    points: Mapping[int, float],
    met: Iterable[tuple[int, int]],
    byes: Iterable[int] = (),
) -> tuple[list[Pairing], int | None]:
    """Round ``round_no``'s pairings from the standings so far, and the entrant with a bye (odd counts).

    Highest points first (ties: the entry order), each paired with the next one it has not met,
    searching back when the last ones left have met (a bounded search; past its bound, or when
    no round without a rematch exists, a rematch rather than no round); the bye goes to the
    lowest-placed entrant without one. Deterministic, so the arena and the service pair alike.
    """
    order = sorted(range(entrants), key=lambda e: (-points.get(e, 0.0), e))
    seen = {frozenset(p) for p in met}
    bye: int | None = None
    if entrants % 2:
        had = set(byes)
        bye = next((e for e in reversed(order) if e not in had), order[-1])
        order.remove(bye)
    matched = _fresh_pairs(order, seen) or _greedy_pairs(order, seen)
    return [Pairing(round_no, i, a, b) for i, (a, b) in enumerate(matched)], bye


SWISS_SEARCH_STEPS = 20_000
"""Steps the search for a round without rematches may take before the greedy pairing is used."""


def _fresh_pairs(order: list[int], seen: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """The first pairing, in standings order, without a rematch (depth first, bounded); None if not found."""
    steps = 0

    def search(left: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not left:
            return []
        a, rest = left[0], left[1:]
        for i, b in enumerate(rest):
            steps += 1
            if steps > SWISS_SEARCH_STEPS:
                return None
            if frozenset((a, b)) in seen:
                continue
            tail = search(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [(a, b), *tail]
        return None

    return search(order)


def _greedy_pairs(order: list[int], seen: set[frozenset[int]]) -> list[tuple[int, int]]:
    """Each one with the next it has not met, or the next at all: a rematch rather than no round."""
    pairs: list[tuple[int, int]] = []
    left = order[:]
    while left:
        a = left.pop(0)
        b = next((x for x in left if frozenset((a, x)) not in seen), left[0])
        left.remove(b)
        pairs.append((a, b))
    return pairs


def games(key: bytes, pairing: Pairing, deals: int, duplicate: bool = True) -> list[GameSpec]:
    """The ``2 * deals`` games of a pairing: each deal's key played from both seatings, or (not
    ``duplicate``) each seating with a key of its own."""
    r, tb = pairing.round_no, pairing.table
    return [
        GameSpec(pairing, d, s, game_key(key, r, tb, d, None if duplicate else s))
        for d in range(deals)
        for s in (0, 1)
    ]


# --- scoring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """A finished game seen from its pairing: ``a``'s and ``b``'s team scores, hands, winner, flags."""

    round_no: int
    table: int
    deal: int
    seating: int
    a: int
    b: int
    a_score: int
    b_score: int
    hands: int
    winner: Winner
    flagged: tuple[int, ...] = ()
    """Entrants the server auto-played at least once in this game (no move in time)."""
    game_id: str = ""

    def points(self, entrant: int) -> float:
        """Score difference per hand for ``entrant`` (0 when no hand was played)."""
        diff = self.a_score - self.b_score
        per = diff / self.hands if self.hands else 0.0
        return per if entrant == self.a else -per

    def win(self, entrant: int) -> float:
        if self.winner == "tie":
            return 0.5
        return 1.0 if (self.winner == "a") == (entrant == self.a) else 0.0


def _t95(df: int) -> float:
    table = (
        12.706,
        4.303,
        3.182,
        2.776,
        2.571,
        2.447,
        2.365,
        2.306,
        2.262,
        2.228,
        2.201,
        2.179,
        2.160,
        2.145,
        2.131,
        2.120,
        2.110,
        2.101,
        2.093,
        2.086,
    )
    return table[df - 1] if df <= len(table) else 1.96 + 2.4 / df


def interval(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% interval (Student's t) of ``xs``; a lone value has an unbounded interval."""
    if not xs:
        return 0.0, -math.inf, math.inf
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, -math.inf, math.inf
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    half = _t95(len(xs) - 1) * sd / math.sqrt(len(xs))
    return m, m - half, m + half


@dataclass(frozen=True)
class Standing:
    """An entrant's line in the standings: points per deal with its interval, wins, flags."""

    rank: int
    entrant: int
    games: int
    deals: int
    points_per_deal: float
    low: float
    high: float
    wins: float
    flagged_games: int


def per_deal(outcomes: Iterable[Outcome]) -> dict[int, list[float]]:
    """Each entrant's points of every complete duplicate deal (both seatings averaged)."""
    pairs: dict[tuple[int, int, int], list[Outcome]] = {}
    for o in outcomes:
        pairs.setdefault((o.round_no, o.table, o.deal), []).append(o)
    out: dict[int, list[float]] = {}
    for group in pairs.values():
        if len(group) != 2:
            continue  # half a duplicate deal: its luck is not cancelled yet
        for e in (group[0].a, group[0].b):
            out.setdefault(e, []).append(sum(o.points(e) for o in group) / 2)
    return out


def standings(entrants: int, outcomes: Sequence[Outcome]) -> list[Standing]:
    """Everyone, best first: mean points per deal, then wins, then the entry order."""
    deals = per_deal(outcomes)
    rows = []
    for e in range(entrants):
        mine = [o for o in outcomes if e in (o.a, o.b)]
        m, lo, hi = interval(deals.get(e, []))
        wins = sum(o.win(e) for o in mine)
        flagged = sum(e in o.flagged for o in mine)
        rows.append((e, len(mine), len(deals.get(e, [])), m, lo, hi, wins, flagged))
    rows.sort(key=lambda r: (-r[3], -r[6], r[0]))
    return [Standing(i + 1, *r) for i, r in enumerate(rows)]


@dataclass
class HeadToHead:
    """One entrant against another: games, wins (a tie half) and points per deal, from the first's side."""

    games: int = 0
    wins: float = 0.0
    points: list[float] = field(default_factory=list)

    @property
    def points_per_deal(self) -> float:
        return sum(self.points) / len(self.points) if self.points else 0.0


def head_to_head(outcomes: Iterable[Outcome]) -> dict[tuple[int, int], HeadToHead]:
    """Every pair that met, both ways round: ``table[(x, y)]`` is x's record against y."""
    table: dict[tuple[int, int], HeadToHead] = {}
    for o in outcomes:
        for me, other in ((o.a, o.b), (o.b, o.a)):
            h = table.setdefault((me, other), HeadToHead())
            h.games += 1
            h.wins += o.win(me)
            h.points.append(o.points(me))
    return table


def swiss_points(entrants: int, outcomes: Iterable[Outcome]) -> dict[int, float]:
    """The standing a Swiss round is paired on: wins so far (a tie half)."""
    pts = dict.fromkeys(range(entrants), 0.0)
    for o in outcomes:
        pts[o.a] += o.win(o.a)
        pts[o.b] += o.win(o.b)
    return pts
