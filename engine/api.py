"""The engine's public face: functions over a ``Match``, the same for the three games.

``apply`` is pure (the match passed in is never changed); ``push`` is the in-place fast
path the search bots and benchmarks use, and ``apply`` is exactly ``copy`` + ``push``, so
the two cannot disagree.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final

from . import actions as act
from . import fair
from .actions import Action, Move
from .base import GAMES, Game
from .cards import CARD_OF, CODES, cards_of, mask_of
from .errors import IllegalAction
from .match import JSON, Match

FORMAT: Final = "atout.match/1"
"""Version tag of the JSON form; ``from_json`` refuses any other."""


def game(game_id: str) -> Game:
    """The rules of a game id (python-chess style registry)."""
    try:
        return GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise IllegalAction(
            "unknown game {game!r}; known games: {known}",
            rule="ALL-1",
            code="unknown_game",
            game=game_id,
            known=known,
        ) from None


def games() -> dict[str, JSON]:
    """Every game id with its player count, teams, deck and options (defaults, allowed values)."""
    return {gid: g.describe() for gid, g in sorted(GAMES.items())}


def new_match(
    game_id: str,
    seed: int | bytes = 0,
    options: JSON | None = None,
    deal: JSON | None = None,
    client_seeds: Sequence[str] | None = None,
    wait: bool = False,
) -> Match:
    """A new match, first hand dealt. ``deal`` is an explicit first deal (ALL-3), not seeded.

    ``seed`` is the match key K as bytes (the service draws it from ``secrets``) or a whole
    number (K = ``engine.fair.key_of_int(seed)``: tests, benches, the arena). ``client_seeds``
    holds one string per seat ("" for none), mixed into every hand (docs/fairness.md).
    ``wait=True``: nothing is dealt until :func:`start` brings the client seeds.
    """
    g = game(game_id)
    return g.new_match(_key(seed), options, deal, _client_seeds(g, client_seeds), wait)


def start(m: Match, client_seeds: Sequence[str] | None = None, deal: JSON | None = None) -> Match:
    """The waiting match ``m`` with its first hand dealt, the client seeds now fixed; ``m`` is unchanged."""
    g = GAMES[m.game]
    if m.phase != "waiting":
        raise IllegalAction("the match has already started", rule="ALL-2", code="already_started")
    seeds = _client_seeds(g, client_seeds)
    explicit = g.parse_deal(deal) if deal is not None else None
    nxt = m.copy()
    g.start(nxt, seeds, explicit)
    return nxt


def _key(seed: int | bytes) -> bytes:
    if isinstance(seed, bytes):
        if not 16 <= len(seed) <= 64:
            raise IllegalAction("a match key must be 16 to 64 bytes", rule="ALL-3", code="invalid_seed")
        return seed
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise IllegalAction(
            "seed must be a whole number, got {seed!r}", rule="ALL-3", code="invalid_seed", seed=seed
        )
    return fair.key_of_int(seed)


def _client_seeds(g: Game, client_seeds: Sequence[str] | None) -> tuple[str, ...]:
    if client_seeds is None:
        return ("",) * g.players
    seeds = tuple(client_seeds)
    if len(seeds) != g.players or not all(isinstance(s, str) for s in seeds):
        raise IllegalAction(
            "client_seeds must hold one string per seat ({players})",
            rule="ALL-3",
            code="invalid_seed",
            players=g.players,
        )
    return seeds


def match_commitment(m: Match) -> str:
    """SHA-256 of the match key, hex: public from the creation of the game."""
    return fair.match_commitment(m.key)


def revealed_key(m: Match) -> str | None:
    """The match key K, hex, once the match is over (None before: it would tell every later hand)."""
    return m.key.hex() if m.over else None


def deal_from_seed(game_id: str, seed: bytes, dealer: int) -> JSON:
    """The hands (each in card order) and kitty (dealt order) a hand seed deals (ALL-3)."""
    hands, kitty = game(game_id).shuffle_deal(seed, dealer)
    return {"hands": [[CODES[c] for c in cards_of(h)] for h in hands], "kitty": [CODES[c] for c in kitty]}


def hand_records(events: Iterable[JSON]) -> list[JSON]:
    """The fairness record of every hand from a match's public events, in hand order:
    {hand, dealer, seeded, commitment, server_part, seed, hands, kitty} (None where not yet shown)."""
    out: dict[int, JSON] = {}
    current = 0
    pending: str | None = None

    def entry(n: int) -> JSON:
        return out.setdefault(
            n,
            {
                "hand": n,
                "dealer": None,
                "seeded": False,
                "commitment": None,
                "server_part": None,
                "seed": None,
                "hands": None,
                "kitty": None,
            },
        )

    for e in events:
        kind = e.get("type")
        if kind == "hand_commitment":
            pending = e["commitment"]
        elif kind == "hand_started":
            current = int(e["hand_number"])
            rec = entry(current)
            rec["dealer"] = e["dealer"]
            if pending is not None:
                rec["seeded"], rec["commitment"], pending = True, pending, None
        elif kind == "hand_scored":
            rec = entry(int(e["hand_number"]))
            rec["hands"] = [list(h) for h in e["deal"]["hands"]]
            rec["kitty"] = list(e["deal"]["kitty"])
        elif kind == "hand_seed":
            rec = entry(int(e["hand"]))
            rec["server_part"], rec["seed"] = e["server_part"], e["seed"]
    return [out[n] for n in sorted(out)]


def verify_deal(game_id: str, record: JSON, client_seeds: Sequence[str], key: str | None = None) -> list[str]:
    """The problems of one hand's record (empty: verified): its server part (with the key), its seed,
    its commitment and every card it dealt, each re-derived (docs/fairness.md)."""
    n = record.get("hand")
    where = f"hand {n}"
    try:
        g = game(game_id)
        part = bytes.fromhex(str(record["server_part"]))
        seed = bytes.fromhex(str(record["seed"]))
        dealer = record["dealer"]
        if key is not None and fair.server_part(bytes.fromhex(key), int(n)) != part:  # type: ignore[arg-type]
            return [f"{where}: the server part is not HMAC-SHA256(K, hand) of the revealed key"]
        if fair.hand_seed(part, client_seeds) != seed:
            return [f"{where}: the seed is not SHA-256 of its server part and the client seeds"]
        if fair.hand_commitment(seed) != record.get("commitment"):
            return [f"{where}: the published commitment is not SHA-256 of the revealed seed"]
        if not (isinstance(dealer, int) and 0 <= dealer < g.players):
            return [f"{where}: dealer {dealer!r} is not a seat"]
        expected = deal_from_seed(game_id, seed, dealer)
        hands, kitty = record.get("hands"), record.get("kitty")
        if not isinstance(hands, list) or len(hands) != g.players or not isinstance(kitty, list):
            return [f"{where}: the dealt hands and kitty are missing"]
        for seat, (got, want) in enumerate(zip(hands, expected["hands"], strict=True)):
            if sorted(CARD_OF.get(str(c), -1) for c in got) != [CARD_OF[c] for c in want]:
                return [f"{where}: seat {seat} was dealt {got}, but the seed deals {want}"]
        if [str(c) for c in kitty] != expected["kitty"]:
            return [f"{where}: the kitty was {kitty}, but the seed deals {expected['kitty']}"]
    except (KeyError, TypeError, ValueError, IllegalAction) as error:
        return [f"{where}: malformed record ({error})"]
    return []


def verify_log(log: JSON) -> list[str]:
    """Every problem found in a match's replay log (empty: every deal verified). Checks the match
    commitment against K, then each hand: server part, seed, commitment, dealer (ALL-2) and every card
    dealt (ALL-3). Hands dealt explicitly (``seeded`` false, administrator only) are reported as such.

    A log that states one fact twice is refused when the two disagree, whichever of them the checks
    would read: otherwise a client reading the other one trusts what was never verified. So the
    ``seed`` must name the same key as ``key`` (:func:`_seed_problem`), and a hand marked
    unseeded must be the log's explicit ``deal``, which only a first hand can be
    (:func:`_explicit_problem`)."""
    problems: list[str] = []
    try:
        g = game(str(log["kind"] if "kind" in log else log["game"]))  # `game` in a log saved before v1
        key = log.get("key")
        commitment = log.get("commitment")
        seeds = log.get("client_seeds")
        hands = log.get("hands")
    except (KeyError, TypeError, IllegalAction) as error:
        return [f"malformed log ({error})"]
    if not isinstance(key, str) or not isinstance(commitment, str):
        return ["the log has no match key or commitment (is the match over?)"]
    try:
        key_bytes = bytes.fromhex(key)
    except ValueError:
        return ["the match key is not hex"]
    if "seed" in log:
        disagreement = _seed_problem(log["seed"], key_bytes, log.get("game_id"))
        if disagreement is not None:
            return [disagreement]
    if fair.match_commitment(key_bytes) != commitment:
        return ["the match commitment is not SHA-256 of the revealed key"]
    if not (isinstance(seeds, list) and len(seeds) == g.players and all(isinstance(s, str) for s in seeds)):
        return [f"client_seeds must list one string per seat ({g.players})"]
    if not isinstance(hands, list) or not hands:
        return ["the log has no hands"]
    first_dealer: int | None = None
    for i, record in enumerate(hands, start=1):
        if not isinstance(record, dict) or record.get("hand") != i:
            return [f"hand {i}: missing or out of order"]
        if not record.get("seeded"):
            contradiction = _explicit_problem(g, log, record)
            if contradiction is not None:
                return [*problems, contradiction]
            problems.append(f"hand {i}: dealt explicitly by the administrator, not from a seed")
            if i == 1:
                first_dealer = record.get("dealer")
            continue
        if i == 1 and log.get("deal") is not None:
            return ["hand 1: marked seeded, but the log gives an explicit first deal (`deal`), never seeded"]
        found = verify_deal(g.id, record, seeds, key)
        if found:
            return problems + found
        if i == 1:
            first_dealer = fair.first_dealer(bytes.fromhex(record["seed"]), g.players)
        if first_dealer is not None and record["dealer"] != (first_dealer + i - 1) % g.players:
            dealer = record["dealer"]
            return [*problems, f"hand {i}: dealer {dealer} is not the seat the deal passed to (ALL-2)"]
    return problems


def _seed_problem(seed: object, key: bytes, game_id: object) -> str | None:
    """Why the log's ``seed`` contradicts its ``key`` (None: it agrees). ``seed`` says the
    match key a second time: K in hex, or the administrator's whole number K is derived from
    (:func:`fair.key_of_int`), written as its decimal digits since v1 (a number before). The deals are
    checked against ``key`` alone, so a ``seed`` naming another key would be believed by whoever reads
    it, never checked."""
    if isinstance(seed, str) and seed.isdecimal() and len(seed) <= 16:  # the administrator's number
        seed = int(seed)
    if isinstance(seed, int) and not isinstance(seed, bool):
        derived = fair.key_of_int(seed)
        if derived == key:
            return None
        shown = f"seed {seed} gives the key {derived.hex()}"
    elif isinstance(seed, str):
        try:
            derived = bytes.fromhex(seed)
        except ValueError:
            return f"malformed log (seed must be the match key in hex or a whole number, got {seed!r})"
        if derived == key:  # bytes: hex compared whatever its case
            return None
        shown = f"seed {seed}"
    else:
        return f"malformed log (seed must be the match key in hex or a whole number, got {seed!r})"
    where = f"/v1/games/{game_id}/log" if isinstance(game_id, str) else "/v1/games/{id}/log"
    return (
        f"the log's seed and key disagree ({shown}, key {key.hex()}): `seed` names "
        f"`key`, the match key the deals are checked against, so one of them was changed; fetch the log "
        f"again (GET {where}) and verify that copy"
    )


def _explicit_problem(g: Game, log: JSON, record: JSON) -> str | None:
    """Why a hand marked unseeded contradicts the log (None: it may be an explicit deal). Its deal is
    not checked against any seed, so the mark must be earned: only the first hand of a match can be
    dealt explicitly (ALL-3), such a hand has no commitment or seed to show, and where the log gives
    the explicit ``deal`` (which it does whenever one was used) hand 1 must be that very deal."""
    n = record.get("hand")
    if n != 1:
        return f"hand {n}: marked unseeded, but only a match's first hand can be an explicit deal (ALL-3)"
    shown = [f for f in ("commitment", "server_part", "seed") if record.get(f) is not None]
    if shown:
        return f"hand 1: marked unseeded, yet it shows a seeded hand's {', '.join(shown)}"
    if "deal" not in log:
        return None  # a log without the field (the engine's own tests): nothing to compare
    deal = log["deal"]
    if deal is None:
        return "hand 1: marked unseeded, but the log gives no explicit deal (`deal` is null)"
    try:
        dealer, (hands, kitty) = g.parse_deal(deal)
    except IllegalAction as error:
        return f"malformed log ({error})"
    got_hands, got_kitty = record.get("hands"), record.get("kitty")
    if got_hands is None and got_kitty is None and record.get("dealer") == dealer:
        return None  # not scored yet (the administrator's early look): no cards shown to contradict it
    if not isinstance(got_hands, list) or len(got_hands) != g.players or not isinstance(got_kitty, list):
        return "hand 1: the dealt hands and kitty are missing"
    if record.get("dealer") != dealer:
        return f"hand 1: dealer {record.get('dealer')!r}, but the log's explicit deal has dealer {dealer}"
    for seat, got in enumerate(got_hands):
        cards = [CARD_OF.get(str(c).upper(), -1) for c in got] if isinstance(got, list) else [-1]
        if sorted(cards) != cards_of(hands[seat]):
            want = [CODES[c] for c in cards_of(hands[seat])]
            return f"hand 1: seat {seat} was dealt {got}, but the log's explicit deal gives {want}"
    if [CARD_OF.get(str(c).upper(), -1) for c in got_kitty] != list(kitty):
        want = [CODES[c] for c in kitty]
        return f"hand 1: the kitty was {got_kitty}, but the log's explicit deal gives {want}"
    return None


def legal_moves(m: Match) -> list[Move]:
    """The legal actions of the seat to act, as records (fast path; discards as a template)."""
    return GAMES[m.game].legal_moves(m)


def random_move(m: Match, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat to act (a random set for a discard).

    The random bot, the property tests and the benchmark all draw moves this way.
    """
    moves = GAMES[m.game].legal_moves(m)
    # rng.random() rather than rng.choice: one C call instead of Python-level rejection sampling,
    # a third of a playout's step; its bias is under 2**-45 for lists this short.
    move = moves[int(rng.random() * len(moves))]
    if isinstance(move, act.DiscardTemplate):
        return act.Discard(mask_of(rng.sample(cards_of(move.cards), move.count)))
    return move


def legal_actions(m: Match, seat: int) -> list[JSON]:
    """The legal actions of ``seat`` in their JSON form; [] when it is not that seat's turn."""
    if seat != m.to_act:
        return []
    return [a.to_json() for a in legal_moves(m)]


def push(m: Match, seat: int, action: Action | JSON) -> Match:
    """Apply ``action`` in place and return ``m``; ``m.events`` holds what it caused.

    On ``IllegalAction`` the match is unchanged: every check precedes the first write.
    """
    if action.__class__ not in act.ACTION_TYPES:
        action = act.parse(action)
    GAMES[m.game].push(m, seat, action)  # type: ignore[arg-type]
    return m


def apply(m: Match, seat: int, action: Action | JSON) -> Match:
    """The match after ``seat`` takes ``action``; ``m`` itself is unchanged."""
    parsed = act.parse(action)
    nxt = m.copy()
    GAMES[m.game].push(nxt, seat, parsed)
    return nxt


def view(m: Match, seat: int | None) -> JSON:
    """What ``seat`` may see (None: a spectator) and nothing else (docs/rules.md ALL-7)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < m.players):
        raise IllegalAction(
            "seat must be 0..{last} or None", rule="ALL-1", code="malformed_action", last=m.players - 1
        )
    return GAMES[m.game].view(m, seat)


def event_for(event: JSON, seat: int | None) -> JSON | None:
    """The event as ``seat`` may see it: private events reach only the seats they name."""
    seats = event.get("visible_to")
    if seats is None:
        return event
    if seat is None or seat not in seats:
        return None
    return event


def to_json(m: Match) -> str:
    """The versioned JSON form of a match; ``from_json`` gives back an identical match."""
    return json.dumps(to_dict(m), separators=(",", ":"))


def to_dict(m: Match) -> JSON:
    """What ``to_json`` writes, before it is text: for a caller with a faster JSON encoder (the
    service writes a state at every move). Plain values only: strings, ints, bools, lists, dicts."""
    return {"format": FORMAT, **GAMES[m.game].state_json(m)}


def from_json(text: str | bytes) -> Match:
    """The match ``to_json`` wrote. A state in another format is refused, never guessed at: one written
    by a newer release (a rolling upgrade done in one step instead of two, docs/operations.md) names
    its format in the message, so the operator reading the error knows which server to upgrade."""
    data: Any = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"not a match in format {FORMAT}")
    found = data.get("format")
    if found != FORMAT:
        raise ValueError(
            f"a match stored in format {str(found)[:40]!r}, which this release does not read (it reads "
            f"{FORMAT}): a newer release wrote it, upgrade this server"
        )
    return game(data["game"]).state_from_json(data)
