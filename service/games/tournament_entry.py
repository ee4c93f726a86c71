"""A new tournament's entry checks (issue 32): its size against the server's bounds, and its entrants.

Size: a tournament plays at most ``tournament_max_games`` games in all (a bot account's,
``tournament_account_max_games``), and one round's games, started at once, must be able to fit the caps
on open games at all (the creator's, the server's, the running tournament games'): a round that never
could is refused here (422 ``invalid_tournament``), before any quota is asked.

Entrants: a built-in level from the known list (the schema's pattern holds it), or a bot account that
exists, entered once, and only by the administrator or by itself: a bot account's consent is its own
key, so nobody enters another's account (403 ``entrant_not_allowed``). Its name becomes a seat name
only under the display-name rule (schema.display), else its id stands in.
"""

from __future__ import annotations

from schema.display import unsafe_character
from schema.tournaments import CreateTournamentRequest
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import Credentials
from service.store import BotAccountStore
from workers import tournament as t

SEAT_NAME_MAX = 40  # the display-name rule's length (schema.games.RegisterBotRequest.name)


def checked_rounds(request: CreateTournamentRequest, creator: str, settings: Settings) -> int:
    """The rounds ``request`` plays, once its size fits this server's bounds (422 ``invalid_tournament``)."""
    try:
        rounds = t.check(request.kind, request.format, len(request.entrants), request.rounds, request.deals)
    except t.TournamentError as error:
        raise ProblemError(
            "invalid_tournament", Text("This tournament cannot be played: {reason}.", reason=str(error))
        ) from None
    per_round = (len(request.entrants) // 2) * request.deals * 2
    total = rounds * per_round
    most = settings.tournament_max_games
    if creator != "admin":
        most = min(most, settings.tournament_account_max_games)
    if total > most:
        raise ProblemError(
            "invalid_tournament",
            Text(
                "This tournament would play {total} games; this server plays at most {most}.",
                total=total,
                most=most,
            ),
        )
    at_once = min(settings.tournament_max_running_games, settings.max_open_games)
    if creator != "admin":
        at_once = min(at_once, settings.max_open_games_per_creator)
    if per_round > at_once:
        raise ProblemError(
            "invalid_tournament",
            Text(
                "A round of this tournament starts {per_round} games at once, and at most {most} may "
                "run at once here: enter fewer entrants or deals.",
                per_round=per_round,
                most=at_once,
            ),
        )
    return rounds


def seat_name(name: str, fallback: str) -> str:
    """``name`` when it obeys the display-name rule (40 characters, none refused, not blank), else
    ``fallback``: a bot account registered before the rule may hold a name no table should show."""
    if not name.strip() or len(name) > SEAT_NAME_MAX or unsafe_character(name) is not None:
        return fallback[:SEAT_NAME_MAX]
    return name


async def checked_entrants(bots: BotAccountStore, kinds: list[str], creator: str) -> list[dict[str, str]]:
    """The entrants of a new tournament, each checked: a built-in level (the schema's pattern
    already holds it to the known list) seated under its own kind; a bot account that exists,
    entered once, by the administrator or by itself (its consent), named under the display rule."""
    entrants: list[dict[str, str]] = []
    for kind in kinds:
        if not kind.startswith("account:"):
            entrants.append({"kind": kind, "name": kind})
            continue
        bid = kind.partition(":")[2]
        if any(e["kind"] == kind for e in entrants):
            raise ProblemError("invalid_tournament", Text("The bot account {bid} is entered twice.", bid=bid))
        if creator not in ("admin", kind):
            raise ProblemError(
                "entrant_not_allowed",
                Text(
                    "The bot account {bid} is not yours: a bot account enters itself and built-in bots "
                    "only; ask the administrator to organise a tournament with other accounts.",
                    bid=bid,
                ),
            )
        bot = await bots.load_bot(bid)
        if bot is None:
            raise ProblemError(
                "bot_not_found",
                Text("There is no bot account {bid!r} (it may have expired).", bid=bid),
            )
        entrants.append({"kind": kind, "name": seat_name(bot.get("name", ""), bid)})
    return entrants


async def bot_or_forbidden(credentials: Credentials, token: str) -> str:
    """The creator a bot account's key names (``account:<id>``); 403 ``tournament_forbidden`` for any
    other credential."""
    try:
        return f"account:{await credentials.bot_of(token)}"
    except ProblemError:
        raise ProblemError(
            "tournament_forbidden", "Only the administrator or a bot account creates a tournament."
        ) from None
