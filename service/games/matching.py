"""Play now: which waiting tickets sit together at which table (the pure part of the matchmaker).

Nothing here reads a clock, Redis or the network: :func:`match` takes the waiting tickets and ``now`` and
returns the tables to open, so the service can run it under its own lock and the tests can run it on any
data. The same input gives the same output (tickets are ordered by ``created_at``, then ``ticket_id``).

**Pools.** A ticket meets only tickets of the same ``(kind, rated, bot_account)``: a rated game is never
filled from the casual queue, and bot accounts play in a pool of their own (people asked to play people).
Options must agree: equal ``options_key``, or ``""`` (any options) on one side. The table takes the one
non-empty key of its tickets (``""`` if none); two different non-empty keys never share a table.

**Order.** Full tables first, the oldest ticket first: each waiting ticket, oldest first, is the *anchor*
of a search for tickets that fill its table exactly. A party (``members``) is seated whole or not at all,
and a party larger than the table is never seated. In a casual pool ratings are ignored and the other
chairs go to the oldest tickets that fit; in a rated pool they go to the nearest ratings (then the oldest).

**Rating window (rated pools).** A ticket that has waited ``w`` seconds accepts opponents within
``window(w) = min(window_max, window_start + window_growth * w)`` points of its own rating (the service
passes its settings, on the display-rating scale: ±5 at once, +0.5 a second, at most ±50, so a full
window after 90 s; :class:`Rules`' own defaults suit an Elo-like scale). Two tickets may share a table
only when each is within the *other's* window, ``|r1 - r2| <= min(window(w1), window(w2))``: a newcomer
is not dragged to a far table because an old ticket's window grew. Nor does a rated table seat a party
with an account of its ``recent_opponents`` (its last rated game: no replaying the same opponents at
once).

**Seating.** Euchre-5 has no fixed teams: parties sit in order, each on consecutive chairs. In the
partnership games (seats 0 & 2 against 1 & 3) the largest party sits first; a party's members, in the
order given, sit two by two as partners on opposite seats, and an odd one out takes the lowest free seat.
So a party of two is a team; a party of three is a team (its first two members) plus a third player who is
partnered with the fourth chair (a stranger or a bot); a party of four is two teams, members 1 & 2 against
members 3 & 4. Seating the largest party first always leaves an opposite pair free for a pair of partners.

**Bots.** A ticket with ``bots_for_the_rest`` gets a private table at once: its party and built-in bots,
never a stranger. Otherwise a group that cannot fill its table is completed with bots once its *oldest*
ticket has waited ``bot_fill_after[kind]`` seconds (a kind missing from the mapping is never bot-filled):
in casual pools, in rated pools only if the operator set ``rated_bot_fill``, never in bot-account pools
(bots already play bots there: an unfilled table just waits). The same rules hold for
``bots_for_the_rest``: where bots may not sit, such a ticket waits (unless its party fills the table),
and the service should refuse it when it is enqueued. The bots play at :func:`bot_level_for` the mean
rating of the humans seated.

**Bounds.** Sorting is O(n log n). A casual anchor looks at no more than the few oldest tickets of each
(options, party size) that could fit, which is enough to find an exact fill whenever one exists (an
anchor asking any options tries the ``ANY_KEYS`` specific keys of the oldest waiting tickets); a rated
anchor scans at most ``RATED_SCAN`` tickets outward from its rating (a sorted sweep) and keeps
``RATED_CANDIDATES`` of them. Every exact-fill search visits at most ``SEARCH_BUDGET`` nodes. So one call
stays near O(n log n) for 10,000 tickets, at the price of missing, rarely, a table (a rated one, or one
of an any-options anchor among many keys) that a slower exhaustive search would find: its tickets wait
for the next call.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Final, Protocol

import engine

RANDOM_BELOW: Final = 10.0
"""Humans whose mean display rating is below this get ``random`` bots (a new player's rating is 0)."""
HEURISTIC_BELOW: Final = 25.0
"""Below this (and from ``RANDOM_BELOW``), ``heuristic`` bots; from it on, ``expert`` bots."""
RATED_SCAN: Final = 256
"""Tickets a rated anchor looks at, outward from its rating, before it gives up for this call."""
RATED_CANDIDATES: Final = 32
"""Compatible tickets a rated anchor keeps (nearest ratings first) for its exact-fill search."""
ANY_KEYS: Final = 8
"""Specific options keys an anchor asking any options tries (those of the oldest waiting tickets)."""
ANY_SCAN: Final = 64
"""Waiting tickets with specific options an any-options anchor looks through to find those keys."""
QUEUE_SCAN: Final = 256
"""Tickets of one casual queue (options key, party size) an anchor looks through for the oldest free."""
SEARCH_BUDGET: Final = 2000
"""Nodes one exact-fill search may visit: the bound that keeps a call near O(n log n)."""


_SPECIFIC: Final = ("", 0)
"""The casual queue of every ticket with specific options (no party has size 0, so no key clashes)."""


@dataclass(frozen=True)
class Ticket:
    """One party waiting to play (members are account ids; the party's rating is the mean of theirs)."""

    ticket_id: str
    kind: str
    rated: bool
    options_key: str
    members: tuple[str, ...]
    rating: float
    created_at: float
    recent_opponents: frozenset[str] = frozenset()
    bots_for_the_rest: bool = False
    bot_account: bool = False


@dataclass(frozen=True)
class Rules:
    """The operator's settings of the matchmaker (seconds and rating points)."""

    bot_fill_after: Mapping[str, float]
    rated_bot_fill: bool = False
    window_start: float = 100.0
    window_growth: float = 25.0
    window_max: float = 1500.0


@dataclass(frozen=True)
class Table:
    """A table to open: an account per seat (``None``: a built-in bot of ``bot_level``)."""

    kind: str
    rated: bool
    options_key: str
    seats: tuple[str | None, ...]
    ticket_ids: tuple[str, ...]
    bot_level: str | None


@dataclass(frozen=True)
class _Pool:
    """What one pool's search needs to know, fixed for the call."""

    kind: str
    players: int
    teams: bool
    rated: bool
    bot_fill: bool
    fill_after: float | None
    now: float
    rules: Rules


def window(waited_seconds: float, rules: Rules) -> float:
    """The rating window (± points) after a wait: it widens with time, so nobody waits for ever for a
    perfect match, but starts narrow, so a full pool gives even games. A negative wait (clock skew)
    counts as none."""
    return min(rules.window_max, rules.window_start + rules.window_growth * max(0.0, waited_seconds))


def bot_level_for(rating: float) -> str:
    """The built-in bots' level for humans of this mean display rating (mu - 3 sigma, a new player 0):
    ``random`` below 10, ``heuristic`` below 25, ``expert`` from 25. Bots near the humans' strength keep
    a bot-filled table a game rather than a rout either way."""
    if rating < RANDOM_BELOW:
        return "random"
    if rating < HEURISTIC_BELOW:
        return "heuristic"
    return "expert"


def match(tickets: Sequence[Ticket], now: float, rules: Rules) -> list[Table]:
    """The tables to open now from the waiting tickets (the module docstring gives the rules).

    Tickets are taken in (created_at, ticket_id) order whatever the input order, so the result is
    deterministic; a ticket id given twice counts once, and an account is seated at most once per call
    (the service keeps one ticket per account, but a table with one account twice must never happen)."""
    taken = _Taken()
    tables: list[Table] = []
    for pool, members in _pools(_valid(tickets), now, rules):
        tables += _match_pool(pool, members, taken)
    return tables


class _Taken:
    """Tickets and accounts already seated during this call (they only ever grow)."""

    def __init__(self) -> None:
        self.tickets: set[str] = set()
        self.accounts: set[str] = set()

    def available(self, ticket: Ticket) -> bool:
        """Not seated yet, nor any of its members through another ticket."""
        return ticket.ticket_id not in self.tickets and self.accounts.isdisjoint(ticket.members)

    def take(self, group: Sequence[Ticket]) -> None:
        """Mark a seated group."""
        for ticket in group:
            self.tickets.add(ticket.ticket_id)
            self.accounts.update(ticket.members)


def _shape(kind: str) -> tuple[int, bool] | None:
    """Seats and teams of a game kind from the engine (``None``: an unknown kind, never matched)."""
    try:
        game = engine.game(kind)
    except engine.IllegalAction:
        return None
    return game.players, game.teams


def _age(ticket: Ticket) -> tuple[float, str]:
    """The fairness order: oldest first, the ticket id breaking ties so the order is total."""
    return ticket.created_at, ticket.ticket_id


def _valid(tickets: Sequence[Ticket]) -> list[Ticket]:
    """The tickets that can ever be seated, oldest first, each id once: a known kind, a party of
    1..players distinct accounts (a larger party cannot sit whole, so it is never matched)."""
    seen: set[str] = set()
    kept: list[Ticket] = []
    for ticket in sorted(tickets, key=_age):
        shape = _shape(ticket.kind)
        size = len(ticket.members)
        if ticket.ticket_id in seen or shape is None or not 1 <= size <= shape[0]:
            continue
        if len(set(ticket.members)) != size:
            continue
        seen.add(ticket.ticket_id)
        kept.append(ticket)
    return kept


def _pools(tickets: list[Ticket], now: float, rules: Rules) -> Iterator[tuple[_Pool, list[Ticket]]]:
    """Tickets split by (kind, rated, bot_account), pools in sorted order, each oldest first."""
    pools: dict[tuple[str, bool, bool], list[Ticket]] = {}
    for ticket in tickets:
        pools.setdefault((ticket.kind, ticket.rated, ticket.bot_account), []).append(ticket)
    for (kind, rated, bots), members in sorted(pools.items(), key=lambda item: item[0]):
        shape = _shape(kind)
        assert shape is not None  # _valid kept known kinds only
        pool = _Pool(
            kind=kind,
            players=shape[0],
            teams=shape[1],
            rated=rated,
            bot_fill=not bots and (not rated or rules.rated_bot_fill),
            fill_after=rules.bot_fill_after.get(kind),
            now=now,
            rules=rules,
        )
        yield pool, members


def _may_meet(a: Ticket, b: Ticket, pool: _Pool) -> bool:
    """May these two parties share a table? Options agree and no account is in both; in a rated pool
    each rating is within the other's window and neither party met the other in its last rated game."""
    if a.options_key != b.options_key and a.options_key and b.options_key:
        return False
    if not set(a.members).isdisjoint(b.members):
        return False
    if not pool.rated:
        return True
    reach = min(window(pool.now - a.created_at, pool.rules), window(pool.now - b.created_at, pool.rules))
    if abs(a.rating - b.rating) > reach:
        return False
    return a.recent_opponents.isdisjoint(b.members) and b.recent_opponents.isdisjoint(a.members)


class _Finder(Protocol):
    """Where an anchor's search gets its candidates, in the order it prefers them."""

    def candidates(self, anchor: Ticket, free: int, taken: _Taken) -> list[Ticket]: ...

    def remove(self, group: Sequence[Ticket]) -> None: ...


class _ByAge:
    """Casual pools: per (options key, party size), the tickets oldest first.

    An exact fill uses at most ``free // size`` parties of one size, and in a casual pool two parties of
    the same options and size are interchangeable, so the oldest ``free // size`` of each are enough
    candidates: the search finds an exact fill whenever one exists (within ``QUEUE_SCAN`` of each
    queue's head), looking at a handful of tickets.
    An anchor asking any options could take any key; it looks at the ``ANY_KEYS`` keys with the oldest
    waiting tickets (among the next ``ANY_SCAN``), so many different keys cannot make a call quadratic."""

    def __init__(self, tickets: Sequence[Ticket]) -> None:
        self._queues: dict[tuple[str, int], list[Ticket]] = {}
        self._heads: dict[tuple[str, int], int] = {}
        for ticket in tickets:
            self._queues.setdefault((ticket.options_key, len(ticket.members)), []).append(ticket)
            if ticket.options_key:
                self._queues.setdefault(_SPECIFIC, []).append(ticket)

    def candidates(self, anchor: Ticket, free: int, taken: _Taken) -> list[Ticket]:
        """The oldest tickets of each options key the anchor accepts and each size that fits, oldest
        first (for an anchor asking any options, several keys: the search keeps one per table)."""
        keys = [anchor.options_key, ""] if anchor.options_key else ["", *self._oldest_keys(anchor, taken)]
        found: list[Ticket] = []
        for key in keys:
            for size in range(1, free + 1):
                found += islice(self._available((key, size), anchor, taken, QUEUE_SCAN), free // size)
        return sorted(found, key=_age)

    def _oldest_keys(self, anchor: Ticket, taken: _Taken) -> list[str]:
        """The specific options keys of the oldest waiting tickets, at most ``ANY_KEYS`` of them."""
        keys: dict[str, None] = {}
        for ticket in self._available(_SPECIFIC, anchor, taken, ANY_SCAN):
            keys[ticket.options_key] = None
            if len(keys) == ANY_KEYS:
                break
        return list(keys)

    def _available(
        self, queue_key: tuple[str, int], anchor: Ticket, taken: _Taken, limit: int
    ) -> Iterator[Ticket]:
        """The available tickets of one queue but the anchor, oldest first, among the ``limit`` from its
        head. The head skips seated tickets for good, as nothing seated is ever free again (that
        skipping costs O(n) a call); the limit bounds the walk over tickets seated behind it."""
        queue = self._queues.get(queue_key, [])
        index = self._heads.get(queue_key, 0)
        while index < len(queue) and not taken.available(queue[index]):
            index += 1
        self._heads[queue_key] = index
        for position in range(index, min(len(queue), index + limit)):
            ticket = queue[position]
            if ticket is not anchor and taken.available(ticket):
                yield ticket

    def remove(self, group: Sequence[Ticket]) -> None:
        """Nothing to do: the queues skip seated tickets as they meet them."""


class _ByRating:
    """Rated pools: the tickets sorted by rating, swept outward from an anchor's rating.

    Candidates must be within the anchor's window anyway, so the nearest ratings are the ones worth
    looking at, and the nearest make the most even game; seated tickets leave the list, so later sweeps
    do not walk over them again. Bound to its pool: rated candidates depend on the windows, so on now."""

    def __init__(self, tickets: Sequence[Ticket], pool: _Pool) -> None:
        ordered = sorted(tickets, key=_rating_order)
        self._order = [_rating_order(ticket) for ticket in ordered]
        self._tickets = ordered
        self._pool = pool

    def candidates(self, anchor: Ticket, free: int, taken: _Taken) -> list[Ticket]:
        """Tickets that may meet the anchor and fit, nearest rating first (then lower, then older)."""
        reach = window(self._pool.now - anchor.created_at, self._pool.rules)
        found: list[Ticket] = []
        for ticket in self._outward(anchor, reach):
            if ticket is anchor or len(ticket.members) > free or not taken.available(ticket):
                continue
            if _may_meet(anchor, ticket, self._pool):
                found.append(ticket)
                if len(found) == RATED_CANDIDATES:
                    break
        return found

    def _outward(self, anchor: Ticket, reach: float) -> Iterator[Ticket]:
        """At most ``RATED_SCAN`` tickets within ``reach`` of the anchor's rating, nearest first."""
        high = bisect_left(self._order, _rating_order(anchor))
        low = high - 1
        for _ in range(RATED_SCAN):
            below = anchor.rating - self._tickets[low].rating if low >= 0 else float("inf")
            above = self._tickets[high].rating - anchor.rating if high < len(self._tickets) else float("inf")
            if min(below, above) > reach:
                return
            if above < below:
                yield self._tickets[high]
                high += 1
            else:
                yield self._tickets[low]
                low -= 1

    def remove(self, group: Sequence[Ticket]) -> None:
        """Seated tickets leave the sweep."""
        for ticket in group:
            index = bisect_left(self._order, _rating_order(ticket))
            if index < len(self._tickets) and self._tickets[index] is ticket:
                del self._order[index]
                del self._tickets[index]


def _rating_order(ticket: Ticket) -> tuple[float, float, str]:
    """The sweep's order: rating, then age, a total order (ticket ids are unique)."""
    return ticket.rating, ticket.created_at, ticket.ticket_id


def _search(
    chosen: tuple[Ticket, ...],
    candidates: Sequence[Ticket],
    start: int,
    free: int,
    pool: _Pool,
    budget: list[int],
) -> tuple[Ticket, ...] | None:
    """Parties from ``candidates[start:]`` that fill exactly ``free`` more seats, each able to meet every
    party chosen. Depth first in the candidates' order, so the first fill found is the preferred one
    (the oldest in a casual pool, the nearest ratings in a rated one); ``budget`` bounds the work."""
    if free == 0:
        return chosen
    for index in range(start, len(candidates)):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        ticket = candidates[index]
        if len(ticket.members) > free or not all(_may_meet(ticket, other, pool) for other in chosen):
            continue
        found = _search((*chosen, ticket), candidates, index + 1, free - len(ticket.members), pool, budget)
        if found is not None:
            return found
    return None


def _match_pool(pool: _Pool, tickets: list[Ticket], taken: _Taken) -> list[Table]:
    """One pool's tables: private tables with bots, then full tables, then bot-filled ones (full tables
    first: a bot takes a chair only when no person could)."""
    tables = _private_tables(pool, tickets, taken)
    public = [ticket for ticket in tickets if not ticket.bots_for_the_rest]
    finder: _Finder = _ByRating(public, pool) if pool.rated else _ByAge(public)
    tables += _full_tables(pool, public, finder, taken)
    if pool.bot_fill and pool.fill_after is not None:
        tables += _bot_filled_tables(pool, public, finder, taken, pool.fill_after)
    return tables


def _private_tables(pool: _Pool, tickets: list[Ticket], taken: _Taken) -> list[Table]:
    """A table per ``bots_for_the_rest`` ticket: its party and bots, at once, where bots may sit (or
    no bot is needed); elsewhere the ticket waits, as it asked for no strangers."""
    tables: list[Table] = []
    for ticket in tickets:
        if not ticket.bots_for_the_rest or not taken.available(ticket):
            continue
        if pool.bot_fill or len(ticket.members) == pool.players:
            taken.take((ticket,))
            tables.append(_table(pool, (ticket,)))
    return tables


def _full_tables(pool: _Pool, tickets: list[Ticket], finder: _Finder, taken: _Taken) -> list[Table]:
    """Every table that people fill exactly, each ticket, oldest first, anchoring its own search."""
    tables: list[Table] = []
    for anchor in tickets:
        if not taken.available(anchor):
            continue
        free = pool.players - len(anchor.members)
        group = _search((anchor,), finder.candidates(anchor, free, taken), 0, free, pool, [SEARCH_BUDGET])
        if group is not None:
            taken.take(group)
            finder.remove(group)
            tables.append(_table(pool, group))
    return tables


def _bot_filled_tables(
    pool: _Pool, tickets: list[Ticket], finder: _Finder, taken: _Taken, fill_after: float
) -> list[Table]:
    """What is left, oldest first: once the oldest left has waited ``fill_after``, it and as many
    people as can join it (exactly as many as fit, the most first) sit with bots for the other chairs."""
    tables: list[Table] = []
    for anchor in tickets:
        if not taken.available(anchor):
            continue
        if pool.now - anchor.created_at < fill_after:
            break  # the others are younger still
        free = pool.players - len(anchor.members)
        candidates = finder.candidates(anchor, free, taken)
        group: tuple[Ticket, ...] | None = None
        for people in range(free, -1, -1):
            group = _search((anchor,), candidates, 0, people, pool, [SEARCH_BUDGET])
            if group is not None:
                break
        assert group is not None  # people == 0 always succeeds
        taken.take(group)
        finder.remove(group)
        tables.append(_table(pool, group))
    return tables


def _table(pool: _Pool, group: Sequence[Ticket]) -> Table:
    """The table of a group: its seats, its options, and its bots' level if it has bots."""
    seats = _seat(group, pool.players, pool.teams)
    humans = sum(len(ticket.members) for ticket in group)
    mean = sum(ticket.rating * len(ticket.members) for ticket in group) / humans
    return Table(
        kind=pool.kind,
        rated=pool.rated,
        options_key=next((ticket.options_key for ticket in group if ticket.options_key), ""),
        seats=seats,
        ticket_ids=tuple(ticket.ticket_id for ticket in group),
        bot_level=bot_level_for(mean) if humans < pool.players else None,
    )


def _seat(group: Sequence[Ticket], players: int, teams: bool) -> tuple[str | None, ...]:
    """Chairs for a group (``None`` for a bot). Without teams, parties in order on consecutive chairs.
    With teams (seat i partners seat i + players/2), largest party first, members two by two on an
    opposite pair, an odd one out on the lowest free chair (the module docstring gives why it fits)."""
    if not teams:
        people = [member for ticket in group for member in ticket.members]
        return (*people, *([None] * (players - len(people))))
    seats: list[str | None] = [None] * players
    pairs = [(seat, seat + players // 2) for seat in range(players // 2)]
    for ticket in sorted(group, key=lambda ticket: -len(ticket.members)):  # stable: ties keep their order
        members = ticket.members
        for first in range(0, len(members), 2):
            chunk = members[first : first + 2]
            if len(chunk) == 2:
                left, right = next(
                    pair for pair in pairs if seats[pair[0]] is None and seats[pair[1]] is None
                )
                seats[left], seats[right] = chunk
            else:
                seats[seats.index(None)] = chunk[0]
    return tuple(seats)
