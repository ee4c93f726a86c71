"""The local harness for bot authors (``atout arena``): matches between two sides over duplicate deals.

A *side* is a built-in strategy (``random``, ``heuristic``, ``expert``: ``workers.bots``), an
external program (``Command``), or a Python function (``Function``). An external program is
started once per seat it holds, fresh for each match (so a bot never sees its partner's cards,
docs/rules.md ALL-7), and speaks one JSON line each way per decision::

    stdin:  {"view": <engine.view for its seat>, "legal_actions": [<engine.legal_actions>]}
    stdout: {"type": "play", "card": "AS"}

the same ``view`` and ``legal_actions`` that the service's bot stream sends (``your_turn``).
Its stdin closes when the match ends. An answer that is not one JSON object, an illegal action,
a crash or no answer within the per-decision timeout is a *forfeit*: the match ends there and
is lost by that side, with the reason in the result. Nothing can make the harness hang.

Seats. In Le 500 and Le Rough side A holds seats 0+2 and side B 1+3 (F5-2, RG-2). Five-handed
euchre has no fixed teams (E5-2): side A holds seat 0 alone against four players of side B.
Duplicate deals: each seed is played twice with the seats swapped (then A holds 1+3, or in
euchre seats 1..4 against B alone at seat 0), so both sides get the same cards and the luck
of the deal cancels; over a pair, two equal sides each win half (in euchre, a lone player
wins about 1/5 and four players about 4/5: the pair averages 1/2).

A side wins a match when one of its seats is among the winners; when both are (euchre ties
share the win, E5-12) the match is a tie, which counts half in A's win rate. Everything but the
decision times is determined by the seeds (``expert`` only with ``playouts``: a time budget
depends on the machine).

The package, one module per concern, each name importable from here: ``sides`` (``Builtin``,
``Function``, the ``Side`` union), ``bot_class`` (``Bot``, ``BotClass``, ``load_bot``: a bot class
loaded from ``module:Class``, the one ``atout bot run`` plays on the service), ``command``
(``Command``: the external program, its process and timeouts), ``match`` (``play_match``, the
seats and seeds of duplicate deals), ``result`` (``MatchResult``, ``ArenaResult`` with ``summary``
and ``to_json``, ``wilson``) and ``base`` (``ArenaError``, ``BotFailure``, ``Player``, the shared
types), ``tournament`` (``run_tournament``: a local tournament with the service's pairing and
scoring code, ``workers.tournament``). ``run`` is here: it checks the
request, plays every duplicate pair and shows a progress bar.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from tqdm import tqdm

import engine
from workers.arena.base import JSON, MAX_HANDS, ArenaError, BotFailure, Outcome, Player, SideName
from workers.arena.bot_class import Bot, BotClass, load_bot
from workers.arena.command import MAX_LINE, POSIX, STDERR_TAIL, Command
from workers.arena.match import duplicate_seeds, match_rng, play_match, seat_plan
from workers.arena.result import ArenaResult, Forfeit, MatchResult, wilson
from workers.arena.sides import Builtin, Function, Side
from workers.arena.tournament import TournamentResult, run_tournament

__all__ = [
    "JSON",
    "MAX_HANDS",
    "MAX_LINE",
    "POSIX",
    "STDERR_TAIL",
    "ArenaError",
    "ArenaResult",
    "Bot",
    "BotClass",
    "BotFailure",
    "Builtin",
    "Command",
    "Forfeit",
    "Function",
    "MatchResult",
    "Outcome",
    "Player",
    "Side",
    "SideName",
    "TournamentResult",
    "duplicate_seeds",
    "load_bot",
    "match_rng",
    "play_match",
    "run",
    "run_tournament",
    "seat_plan",
    "wilson",
]


def run(
    game: str,
    a: Side,
    b: Side,
    matches: int = 20,
    seed: int = 1,
    options: JSON | None = None,
    progress: bool | None = False,
    max_hands: int = MAX_HANDS,
) -> ArenaResult:
    """Play ``matches`` matches of A against B on duplicate deals from ``seed`` on.

    ``progress``: a tqdm bar on stderr (None: only when stderr is a terminal).
    """
    if matches < 1:
        raise ArenaError(f"play at least one match, not {matches}")
    options = dict(options or {})
    try:
        engine.new_match(game, seed=seed, options=options)
    except engine.IllegalAction as e:
        raise ArenaError(str(e)) from e
    seeds = duplicate_seeds(matches, seed)
    result = ArenaResult(game, a.name, b.name, options, seeds, max_hands=max_hands)
    with _bar(2 * len(seeds), f"{game} A={a.name} B={b.name}", progress) as bar:
        for s in seeds:
            for a_seats in seat_plan(game):
                result.matches.append(play_match(game, s, a_seats, a, b, options, result.times, max_hands))
                if bar is not None:
                    bar.update()
                    bar.set_postfix_str(f"A {result.win_rate:.0%}")
    return result


@contextlib.contextmanager
def _bar(total: int, desc: str, progress: bool | None) -> Iterator[Any]:
    if progress is False:
        yield None
        return
    disable = None if progress is None else False
    with tqdm(total=total, desc=desc, unit="match", file=sys.stderr, disable=disable, leave=False) as bar:
        yield bar
