"""Rated games: who a rated match rates, how (openskill's Plackett-Luce model, Weng-Lin), and the ladders.

A rated game seats identities only: players, bot accounts and built-in bots (service/games/lobby.py
refuses the rest). Its accounts on the ladders are ``player:<id>``, ``bot:<id>`` (a bot account) and
``builtin:<level>`` (the built-in bots, rated like anyone: they anchor the scale, as their strength does
not change). At the match's end (:meth:`Ratings.rate_match`, called by the one place every finish passes:
``Play.act_as``, on the ratings part it holds, whether a person, a bot or a turn timer made the last
move) the ranking is:

- partnership games (Le 500, Le Rough): two teams of two, the winners' team first;
- five-handed euchre: five players ranked by final score, ties sharing a rank;
- a seat given up during the match (left, or handed to a bot after too many timed-out turns) keeps its
  account, which is ranked last: its team loses, or in euchre it comes after every other player.

The repeat rule: the n-th rated match between the very same accounts of a game kind within 24 hours of
the first of them counts in full while n ≤ ``rating_repeat_full``, then half as much each time
(weight 0.5, 0.25 …), and not at all past ``rating_repeat_max`` (the change is still in the history,
with its weight). A weight w moves mu and sigma by w times openskill's change.

The newcomer rule (rating farming): an established account (its provisional flag cleared) that meets a
provisional opponent (on the other team; in euchre, any other seat) moves by ``rating_newcomer_weight``
of its change (times the repeat weight), while the provisional account itself moves in full. A win over
a fresh guest or a fresh bot account (each costs one request) tells little about strength, and at full
weight it paid about +2.3 a match: at the default 0.1 it pays about a tenth of that, and a farmer must
first play each puppet through ``rating_provisional_matches`` rated matches (limited by the repeat rule
between the same accounts) before it counts in full. An operator who wants more sets
``ATOUT_RATED_IDENTITIES=identified``: then only players with an identity of a trusted issuer (a JWT),
bot accounts and built-in bots sit at a rated table, never a guest (:func:`check_rated_join`).

A game is rated once: the finish that claims it (SET NX) rates it, a retried finish finds the claim;
each account's new rating is written by compare-and-set, recomputed from its fresh rating when another
rated end moved it meanwhile (its opponents' ratings as they were read). A rated game always runs on a
turn clock (:func:`rated_clock`), so a losing player cannot stall it until it expires unrated.
"""

from __future__ import annotations

import base64
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any, Literal

from openskill.models import PlackettLuce

import engine
from schema import ratings as answers
from schema.games import NewGame
from schema.pages import MAX_CURSOR
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import GameCore
from service.games.cursors import not_a_cursor, opaque_json
from service.store import Store
from service.store.keys import account_keys, owner_player
from service.store.ratings import BOARDS, LadderEntry, RatingWrite
from service.store.records import GameRecord

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6
ACCOUNT_ID = re.compile(r"^(player|bot|builtin):[A-Za-z0-9_-]{1,64}$")
CURSOR_PREFIX = "l1."
RATE_ATTEMPTS = 5  # writes of one account's new rating while its rating keeps moving under it


def seat_account(kind: str, owner: str) -> str:
    """The ladder account of a seat: its owner's (a player or a bot account), else its built-in bot's."""
    if owner:
        return owner if owner_player(owner) is not None else f"bot:{owner}"
    return f"builtin:{kind.partition(':')[2]}"


def board_of(account: str) -> str:
    return "people" if account.startswith("player:") else "bots"


def repeat_weight(n: int, full: int, most: int) -> float:
    """The weight of the n-th rated match between the same accounts within 24 hours (module docstring)."""
    if n > most:
        return 0.0
    return 1.0 if n <= full else 0.5 ** (n - full)


@dataclass(frozen=True)
class Placing:
    """One account's place in a finished match: its team (openskill's), rank (1 best) and whether it left."""

    account: str
    team: int
    rank: int
    left: bool


def placings(record: GameRecord, m: engine.Match) -> list[Placing]:
    """Who a finished rated match ranks where (the module docstring's rules)."""
    seats = record.seats
    accounts = [seat_account(s.kind, s.owner) for s in seats]
    left = [bool(s.owner) and s.kind != "human" for s in seats]
    if engine.games()[record.game]["teams"]:
        winners = set(m.winners or [])
        team_won = [any(i in winners for i in range(t, record.players, 2)) for t in (0, 1)]
        team_left = [any(left[i] for i in range(t, record.players, 2)) for t in (0, 1)]
        if team_left[0] != team_left[1]:
            team_won = [not team_left[0], not team_left[1]]
        return [Placing(accounts[i], i % 2, 1 if team_won[i % 2] else 2, left[i]) for i in range(len(seats))]
    scores = list(m.scores)
    ranks = []
    for i in range(len(seats)):
        if left[i]:
            ranks.append(len(seats))
        else:
            ranks.append(1 + sum(1 for j in range(len(seats)) if not left[j] and scores[j] > scores[i]))
    return [Placing(accounts[i], i, ranks[i], left[i]) for i in range(len(seats))]


def newcomer_weights(
    places: list[Placing], stored: list[dict[str, str]], provisional_until: int, newcomer: float
) -> list[float]:
    """Each account's factor under the newcomer rule (module docstring): ``newcomer`` for an established
    account with a provisional opponent, else 1."""
    fresh = [int(s.get("matches", "0")) < provisional_until for s in stored]
    return [
        newcomer if not fresh[i] and any(fresh[j] for j, q in enumerate(places) if q.team != p.team) else 1.0
        for i, p in enumerate(places)
    ]


def rate(
    places: list[Placing], stored: list[dict[str, str]], weights: list[float]
) -> list[tuple[float, float]]:
    """The new (mu, sigma) of each placing's account from its stored rating (openskill's default when
    none), by Plackett-Luce over the teams and their ranks, moved by its ``weights[i]`` of the change."""
    teams: dict[int, list[int]] = {}
    for i, p in enumerate(places):
        teams.setdefault(p.team, []).append(i)
    order = sorted(teams)
    before = [(float(s["mu"]), float(s["sigma"])) if s.get("mu") else (MODEL.mu, MODEL.sigma) for s in stored]
    rated = MODEL.rate(
        [[MODEL.rating(*before[i]) for i in teams[t]] for t in order],
        ranks=[float(places[teams[t][0]].rank) for t in order],
    )
    after = list(before)
    for t, team in zip(order, rated, strict=True):
        for i, r in zip(teams[t], team, strict=True):
            mu0, sigma0 = before[i]
            w = weights[i]
            after[i] = (mu0 + w * (r.mu - mu0), sigma0 + w * (r.sigma - sigma0))
    return after


def ordinal(mu: float, sigma: float) -> float:
    """The display rating: mu - 3*sigma (openskill's ordinal), low while a rating is uncertain."""
    return mu - 3 * sigma


def encode_ladder_cursor(entry: LadderEntry) -> str:
    raw = json.dumps([entry.ordinal, entry.account], separators=(",", ":")).encode()
    return CURSOR_PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_ladder_cursor(cursor: str) -> tuple[float, str]:
    """The (ordinal, account) a ladder cursor resumes after; 422 ``invalid_request`` for any other
    (read by the one decoder of client cursors, length first: service/games/cursors.py)."""
    match opaque_json(cursor, CURSOR_PREFIX, MAX_CURSOR):
        case [float() | int() as score, str() as account] if (
            not isinstance(score, bool) and math.isfinite(score) and ACCOUNT_ID.fullmatch(account)
        ):
            return float(score), account
    raise not_a_cursor(("query", "cursor"))


class Ratings:
    """Rating a finished rated match, forgetting a deleted account's ratings; the ladders and an
    account's rating, read, and as REST and GraphQL both answer them (``schema.ratings``)."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def forget_ratings(self, account: str) -> None:
        """Drop a deleted account's ratings, histories and ladder places in every game kind."""
        await self.store.ratings.forget_ratings(account, sorted(engine.games()))

    async def rate_match(self, gid: str, m: engine.Match) -> None:
        """Rate the finished rated game ``gid`` (whose final match is ``m``) once."""
        record = await self.store.games.load(gid)  # fresh: the seats as they are at the end (a leave since)
        if record is None or not record.extra.get("rated") or not m.over:
            return
        if not await self.store.ratings.claim_rating(gid):
            return
        places = placings(record, m)
        accounts = [p.account for p in places]
        n = await self.store.ratings.count_group_match(record.game, accounts)
        s = self.settings
        repeat = repeat_weight(n, s.rating_repeat_full, s.rating_repeat_max)
        before = await self.store.ratings.load_ratings(accounts, record.game)
        weights = [
            repeat * w
            for w in newcomer_weights(places, before, s.rating_provisional_matches, s.rating_newcomer_weight)
        ]
        after = rate(places, before, weights)
        keys = [self._name_key(a) for a in accounts]  # a deleted account's rating is not written again
        alive = iter(await self.store.ratings.accounts_exist([k for k in keys if k]))
        kept = [next(alive) if key else True for key in keys]
        for i, p in enumerate(places):
            own = before[i]
            for _ in range(RATE_ATTEMPTS):
                if not kept[i] or await self.store.ratings.write_rating(
                    self._write(gid, record.game, p, own, after[i], weights[i]),
                    own.get("mu", ""),
                    s.rating_history_length,
                ):
                    break
                # the account's rating moved meanwhile (another of its rated games ended at the same
                # moment): its change is computed again from its new rating, the others' as they were
                own = (await self.store.ratings.load_ratings([p.account], record.game))[0]
                after[i] = rate(places, [own if j == i else b for j, b in enumerate(before)], weights)[i]

    def _write(
        self, gid: str, game: str, p: Placing, old: dict[str, str], new: tuple[float, float], weight: float
    ) -> RatingWrite:
        """One account's new rating, from ``old`` (stored) to ``new`` (mu, sigma), and its history entry."""
        mu, sigma = new
        matches = int(old.get("matches", "0")) + (1 if weight > 0 else 0)
        value = ordinal(mu, sigma)
        previous = float(old["ordinal"]) if old.get("ordinal") else ordinal(MODEL.mu, MODEL.sigma)
        fields = {"mu": repr(mu), "sigma": repr(sigma), "ordinal": repr(value), "matches": str(matches)}
        change = {
            "game_id": gid,
            "at": time.time(),
            "mu": mu,
            "sigma": sigma,
            "ordinal": value,
            "delta": value - previous,
            "rank": p.rank,
            "left": p.left,
            "weight": weight,
        }
        # a rating lasts as long as its account would, idle, after its last rated match (a built-in
        # bot's for ever): service/store/ratings.py
        s = self.settings
        ttl = {"player": s.player_idle_ttl, "bot": s.bot_idle_ttl}.get(p.account.partition(":")[0], 0)
        return RatingWrite(p.account, game, fields, change, board_of(p.account), value, ttl)

    @staticmethod
    def check_kind(game: str) -> None:
        if game not in engine.games():
            raise ProblemError(
                "unknown_game",
                Text("There is no game kind {game!r}; see GET /v1/rules.", game=game),
            )

    @staticmethod
    def check_board(board: str) -> None:
        if board not in BOARDS:
            raise ProblemError(
                "invalid_request",
                "board must be `people` or `bots`.",
                errors=[{"loc": ["query", "board"], "msg": "people or bots", "type": "value_error"}],
            )

    @staticmethod
    def check_account(account: str) -> None:
        if not ACCOUNT_ID.fullmatch(account):
            raise ProblemError(
                "rating_not_found",
                Text(
                    "{account!r} is not a rated account (player:<id>, bot:<id>, builtin:<level>).",
                    account=account,
                ),
            )

    async def ladder_rows(self, game: str, entries: list[LadderEntry]) -> list[dict[str, Any]]:
        """Ladder entries with each account's name, rating and provisional flag (two round trips). An
        entry whose rating has expired (its account idle past its TTL since its last rated match) is
        dropped from the ladder on the way: the ladders hold no account for longer than its rating."""
        accounts = [e.account for e in entries]
        keys = [self._name_key(a) for a in accounts]
        stored, names = await self.store.ratings.ratings_and_names(accounts, game, [k for k in keys if k])
        named = iter(names)
        n = self.settings.rating_provisional_matches
        rows = []
        expired = [e.account for e, r in zip(entries, stored, strict=True) if not r]
        if expired:
            await self.store.ratings.prune_ladder(game, board_of(expired[0]), expired)
        for e, key, r in zip(entries, keys, stored, strict=True):
            if not r:
                continue
            name = next(named) if key else e.account.partition(":")[2]
            rows.append(self._row(e.account, game, r, n) | {"rank": e.rank, "name": name})
        return rows

    @staticmethod
    def _name_key(account: str) -> str:
        kind, _, ident = account.partition(":")
        if kind == "player":
            return account_keys(account)[0]
        return account_keys(ident)[0] if kind == "bot" else ""

    @staticmethod
    def _row(account: str, game: str, r: dict[str, str], provisional_until: int) -> dict[str, Any]:
        matches = int(r.get("matches", "0"))
        return {
            "account_id": account,
            "kind": game,
            "rating": float(r.get("ordinal", "0")),
            "mu": float(r.get("mu", MODEL.mu)),
            "sigma": float(r.get("sigma", MODEL.sigma)),
            "matches": matches,
            "provisional": matches < provisional_until,
        }

    async def ladder(
        self, game: str, board: str, limit: int, cursor: str | None
    ) -> tuple[list[dict[str, Any]], str | None, int]:
        """A page of a ladder (best first), the cursor of the next page (None: the last) and its size."""
        self.check_kind(game)
        self.check_board(board)
        after = decode_ladder_cursor(cursor) if cursor else None
        entries = await self.store.ratings.ladder_page(game, board, limit + 1, after)
        page = entries[:limit]
        nxt = encode_ladder_cursor(page[-1]) if len(entries) > limit and page else None
        return await self.ladder_rows(game, page), nxt, await self.store.ratings.ladder_size(game, board)

    async def ladder_position(self, game: str, account: str, around: int) -> list[dict[str, Any]]:
        """``account``'s place on its ladder, up to ``around`` neighbours either side; 404 when unrated."""
        self.check_kind(game)
        self.check_account(account)
        entries = await self.store.ratings.ladder_around(game, board_of(account), account, around)
        if entries is None:
            raise self._unrated(account, game)
        return await self.ladder_rows(game, entries)

    async def rating(
        self, game: str, account: str, limit: int
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """``account``'s rating in ``game`` and its latest ``limit`` changes, newest first."""
        self.check_kind(game)
        self.check_account(account)
        stored = (await self.store.ratings.load_ratings([account], game))[0]
        if not stored:
            raise self._unrated(account, game)
        row = self._row(account, game, stored, self.settings.rating_provisional_matches)
        return row, await self.store.ratings.rating_history(account, game, limit)

    async def ladder_page(self, game: str, board: str, limit: int, cursor: str | None) -> answers.LadderPage:
        rows, nxt, total = await self.ladder(game, board, limit, cursor)
        entries = [answers.LadderEntry.model_construct(**row) for row in rows]  # trusted: no validation
        return answers.LadderPage.model_validate(
            {"kind": game, "board": board, "total": total, "entries": entries, "next_cursor": nxt}
        )

    async def ladder_place(self, game: str, account: str, around: int) -> answers.LadderPosition:
        entries = [
            answers.LadderEntry.model_construct(**row)
            for row in await self.ladder_position(game, account, around)
        ]
        rank = next((e.rank for e in entries if e.account_id == account), None)
        if rank is None:  # its rating expired just now (the read dropped it from the ladder)
            raise self._unrated(account, game)
        board: Literal["people", "bots"] = "people" if board_of(account) == "people" else "bots"
        return answers.LadderPosition.model_validate(
            {"kind": game, "board": board, "account_id": account, "rank": rank, "entries": entries}
        )

    async def rating_history(self, game: str, account: str, limit: int) -> answers.RatingHistory:
        row, history = await self.rating(game, account, limit)
        return answers.RatingHistory(
            rating=answers.RatingInfo.model_validate(row),
            history=[answers.RatingChange.model_validate(rating_change(h)) for h in history],
        )

    @staticmethod
    def _unrated(account: str, game: str) -> ProblemError:
        return ProblemError(
            "rating_not_found",
            Text(
                "{account} has no rating in {game} (no rated match yet, or the account is gone).",
                account=account,
                game=game,
            ),
        )


def rating_change(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored change in the contract's words: the store keeps its moment as ``at``, POSIX seconds
    (``schema.ratings.RatingChange`` says it as ``rated_at``, an RFC 3339 string)."""
    said = {key: value for key, value in stored.items() if key != "at"}
    return {**said, "rated_at": stored["at"]}


def check_rated_game(seats: list[str], chosen_deal: bool) -> None:
    """A rated game's seats at its creation: each built-in bot level at most once (one account, one seat),
    and no chosen seed or deal (whoever chose it knows every hand); 422 ``rated_game_refused``."""
    bots = [s for s in seats if s.startswith("bot:")]
    if len(set(bots)) != len(bots):
        raise ProblemError(
            "rated_game_refused",
            "A rated game seats each built-in bot level at most once: one account, one seat.",
        )
    if chosen_deal:
        raise ProblemError(
            "rated_game_refused", "A rated game is dealt from a fresh key: omit `seed` and `deal`."
        )


async def check_rated_join(core: GameCore, owner: str) -> None:
    """A rated game's seat goes to an identity (a player's or a bot account's credential) only; with
    ``ATOUT_RATED_IDENTITIES=identified`` not to a guest player either (the newcomer rule in the module
    docstring says why an operator may want it). 403 ``rated_needs_identity``."""
    if not owner:
        raise ProblemError(
            "rated_needs_identity",
            "This game is rated: join with a player's credential or a bot account's API key, not "
            "anonymously.",
        )
    pid = owner_player(owner)
    if pid is None or core.settings.rated_identities != "identified":
        return
    player = await core.store.players.load_player(pid, core.settings.player_idle_ttl)
    if not (player or {}).get("issuer"):
        raise ProblemError(
            "rated_needs_identity",
            "This server rates only players signed in with the app's identity provider: link your "
            "guest player to it (POST /v1/me/identity) or join an unrated game.",
        )


def rated_clock(request: NewGame, settings: Settings) -> NewGame:
    """A rated game always has a turn clock and a limit of timed-out turns (the settings' when the
    request gives none): a player losing cannot stall the match until it expires unrated; their turns
    are played by a bot when the clock runs out, and after the limit the seat is handed to a bot for
    good and rated as given up (last)."""
    return request.model_copy(
        update={
            "turn_seconds": request.turn_seconds or settings.rating_turn_seconds,
            "timeouts_to_bot": request.timeouts_to_bot or settings.rating_timeouts_to_bot,
        }
    )
