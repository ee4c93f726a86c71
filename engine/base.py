"""What every game shares: options, dealing, turn order, trick play, hand and match flow.

In the spirit of OpenSpiel's game modules, a game subclass only says what is its own:
the deck, the deal pattern, its bidding phases (``_legal_<phase>`` / ``_push_<phase>``),
its trump table, the scoring of a hand and the end of the match. This class owns the
bookkeeping (turns, tricks, card places, events, the deal record), so game modules never
repeat it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Final

from . import actions as act
from . import fair
from .actions import Action, Move
from .cards import BIT, CARD_OF, CODES, Record, cards_of, codes_of, mask_of
from .errors import IllegalAction
from .match import BID, DEALT, HAND_SCORED, JSON, PLAYED, TRICK, LastHand, Match
from .tricks import TrumpTable, legal_plays, trick_winner_index


@dataclass(frozen=True)
class Option(Record):
    """A docs/rules.md **[option]**: its default, the values allowed and the rule it varies."""

    default: Any
    allowed: tuple[Any, ...]
    rule: str
    doc: str

    def to_json(self) -> JSON:
        return {"default": self.default, "allowed": list(self.allowed), "rule": self.rule, "doc": self.doc}


GAMES: Final[dict[str, Game]] = {}
"""Every game by id, filled as the game modules are imported. A module constant (not only a class
attribute): compiled, reading it costs no dictionary lookup, and every public call goes through it."""

Deal = tuple[list[int], tuple[int, ...]]
"""Hands (masks, per seat) and kitty (cards in order) of one hand."""


class Game:
    """One game's rules. Subclasses register themselves by ``id`` (``GAMES``)."""

    id: ClassVar[str]
    name: ClassVar[str]
    players: ClassVar[int]
    teams: ClassVar[bool]
    deck: ClassVar[tuple[int, ...]]
    deal_pattern: ClassVar[tuple[tuple[str, int], ...]]
    """Deal packets from left of the dealer: ("each", n) to every seat, ("kitty", n)."""
    hand_size: ClassVar[int]
    kitty_size: ClassVar[int]
    option_specs: ClassVar[dict[str, Option]] = {}
    deck_rule: ClassVar[str]
    kitty_to_taker: ClassVar[bool] = True
    """Le 500 and Le Rough: the taker picks up the whole kitty (F5-10, RG-10)."""
    deal_rule: ClassVar[str]
    end_rule: ClassVar[str]

    registry: ClassVar[dict[str, Game]] = GAMES
    """Every game by id (the same dict as ``GAMES``)."""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.deck_mask = mask_of(cls.deck)
        # Phase dispatch tables (OpenSpiel's per-phase methods), resolved once.
        cls.pushers = {n[6:]: getattr(cls, n) for n in dir(cls) if n.startswith("_push_")}
        cls.legals = {n[7:]: getattr(cls, n) for n in dir(cls) if n.startswith("_legal_")}
        GAMES[cls.id] = cls()

    deck_mask: ClassVar[int]
    pushers: ClassVar[dict[str, Callable[[Game, Match, int, Action], None]]]
    legals: ClassVar[dict[str, Callable[[Game, Match], list[Move]]]]

    # ----- options -------------------------------------------------------------------
    def validate_options(self, options: JSON | None) -> JSON:
        """Options checked up front, so a bad one fails at creation: unknown names and values are refused."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.option_specs))
        if unknown:
            known = ", ".join(sorted(self.option_specs)) or "none"
            raise IllegalAction(
                "unknown option(s) {unknown} for {game}; known: {known}",
                rule=self.deck_rule,
                code="invalid_options",
                unknown=", ".join(unknown),
                game=self.id,
                known=known,
            )
        out = {}
        for name, spec in self.option_specs.items():
            value = options.get(name, spec.default)
            if value not in spec.allowed or type(value) is not type(spec.default):
                allowed = ", ".join(str(v) for v in spec.allowed)
                raise IllegalAction(
                    "option {name} must be one of {allowed}, got {value!r}",
                    rule=spec.rule,
                    code="invalid_options",
                    name=name,
                    allowed=allowed,
                    value=value,
                )
            out[name] = value
        return out

    def describe(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "players": self.players,
            "teams": self.teams,
            "deck": [CODES[c] for c in self.deck],
            "options": {k: v.to_json() for k, v in self.option_specs.items()},
        }

    # ----- match and hand setup ------------------------------------------------------
    def new_match(
        self,
        key: bytes,
        options: JSON | None,
        deal: JSON | None,
        client_seeds: Sequence[str] | None = None,
        wait: bool = False,
    ) -> Match:
        """A match keyed by ``key`` (engine.fair). ``wait``: nothing is dealt until ``start``, so the
        seats' client seeds, known only once every seat is taken, can be mixed into every hand."""
        m = Match.__new__(Match)
        m.game, m.options, m.key, m.players = self.id, self.validate_options(options), key, self.players
        m.client_seeds = tuple(client_seeds) if client_seeds is not None else ("",) * self.players
        m.scores = [0] * (2 if self.teams else self.players)
        m.hand_number, m.prev, m.winners, m.log = 0, None, None, []
        explicit = self.parse_deal(deal) if deal is not None else None
        if wait:
            self.clear_hand(m, 0)
            m.hands, m.dealt, m.kitty_dealt, m.kitty = [0] * self.players, [0] * self.players, (), 0
            m.phase, m.to_act, m.seeded = "waiting", None, False
            return m
        self.start(m, m.client_seeds, explicit)
        return m

    def start(self, m: Match, client_seeds: Sequence[str], explicit: tuple[int, Deal] | None) -> None:
        """Deal the first hand, the seats' client seeds now fixed for the whole match."""
        m.client_seeds = tuple(client_seeds)
        if explicit is not None:
            self.start_hand(m, explicit[0], explicit[1])
            return
        # ALL-2: the first dealer is drawn from hand 1's seed (engine.fair.first_dealer).
        seed = fair.hand_seed_of(m.key, 1, m.client_seeds)
        self.start_hand(m, fair.first_dealer(seed, self.players))

    def parse_deal(self, deal: JSON) -> tuple[int, Deal]:
        """An explicit deal must be exactly a partition of the deck (ALL-3)."""

        def bad(template: str, **params: object) -> IllegalAction:
            return IllegalAction(template, rule="ALL-3", code="invalid_deal", **params)

        if not isinstance(deal, dict):
            raise bad("explicit deal: must be an object with dealer, hands and kitty")
        dealer, hands, kitty = deal.get("dealer"), deal.get("hands"), deal.get("kitty")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < self.players:
            raise bad("explicit deal: dealer must be a seat 0..{last}", last=self.players - 1)
        if not isinstance(hands, list) or len(hands) != self.players:
            raise bad("explicit deal: hands must be a list of {players} hands", players=self.players)
        if not isinstance(kitty, list) or len(kitty) != self.kitty_size:
            raise bad("explicit deal: kitty must list {count} cards", count=self.kitty_size)
        seen: list[int] = []
        for group in [*hands, kitty]:
            if not isinstance(group, list):
                raise bad("explicit deal: each hand is a list of card codes")
            for code in group:
                if not isinstance(code, str) or code.upper() not in CARD_OF:
                    raise bad("explicit deal: {value!r} is not a card code", value=code)
                seen.append(CARD_OF[code.upper()])
        if any(len(h) != self.hand_size for h in hands):
            raise bad("explicit deal: each hand must hold {count} cards", count=self.hand_size)
        if len(set(seen)) != len(seen) or mask_of(seen) != self.deck_mask:
            raise bad(
                "explicit deal: the hands and kitty must hold each of the {count} cards of the deck "
                "exactly once ({deck_rule})",
                count=len(self.deck),
                deck_rule=self.deck_rule,
            )
        return dealer, (
            [mask_of(CARD_OF[c.upper()] for c in h) for h in hands],
            tuple(CARD_OF[c.upper()] for c in kitty),
        )

    def shuffle_deal(self, seed: bytes, dealer: int) -> Deal:
        """Deal from the hand's seed (engine.fair.shuffle of the deck in its canonical order), in the
        packets of the game (ALL-3, F5-3, RG-5, E5-3)."""
        hands = [0] * self.players
        kitty: list[int] = []
        order = fair.shuffle(self.deck, seed)
        targets = self.deal_targets(dealer)
        for i in range(len(order)):  # indexed, not zip: a native loop when compiled
            c, seat = order[i], targets[i]
            if seat < 0:
                kitty.append(c)
            else:
                hands[seat] |= BIT[c]
        return hands, tuple(kitty)

    @classmethod
    @cache
    def deal_targets(cls, dealer: int) -> tuple[int, ...]:
        """Where each card of the shuffled deck goes, top first: a seat, or -1 for the kitty."""
        targets: list[int] = []
        for target, count in cls.deal_pattern:
            if target == "kitty":
                targets += [-1] * count
            else:
                for k in range(1, cls.players + 1):
                    targets += [(dealer + k) % cls.players] * count
        return tuple(targets)

    def start_hand(self, m: Match, dealer: int, deal: Deal | None = None) -> None:
        """Deal hand ``hand_number + 1``: from an explicit deal (not seeded), or from the hand's seed,
        whose commitment is published before the first card (docs/fairness.md)."""
        m.hand_number += 1
        if deal is None:
            seed = fair.hand_seed_of(m.key, m.hand_number, m.client_seeds)
            commitment = fair.hand_commitment(seed)
            m.log.append({"type": "hand_commitment", "hand": m.hand_number, "commitment": commitment})
            hands, kitty = self.shuffle_deal(seed, dealer)
            m.seeded = True
        else:
            hands, kitty = deal
            m.seeded = False
        self.clear_hand(m, dealer)
        m.hands, m.dealt = hands[:], hands[:]
        m.kitty_dealt, m.kitty = kitty, mask_of(kitty)
        m.log.append({"type": "hand_started", "hand_number": m.hand_number, "dealer": dealer})
        for seat in range(self.players):
            m.log.append((DEALT, seat, hands[seat]))
        self.open_bidding(m)

    def clear_hand(self, m: Match, dealer: int) -> None:
        """Every per-hand field back to its start (the cards aside)."""
        m.dealer = dealer
        m.discards, m.discarder = 0, None
        m.bids, m.high_bid, m.high_bidder, m.turns = [], 0, None, 0
        m.taker, m.trump, m.level, m.no_trump = None, None, 0, False
        m.called, m.partner, m.alone, m.revealed = None, None, False, False
        m.trick, m.tricks, m.tricks_won, m.played = [], [], [0] * self.players, 0
        m.leader = (dealer + 1) % self.players
        m.table = None
        m.to_act = (dealer + 1) % self.players

    def open_bidding(self, m: Match) -> None:
        raise NotImplementedError

    def void_hand(self, m: Match, rule: str) -> None:
        """Everybody passed: nobody scores and the deal passes left (F5-9, RG-8)."""
        m.log.append({"type": "hand_void", "rule": rule})
        self.finish_hand(m, {"void": True})

    # ----- the legality gate ---------------------------------------------------------
    def legal_moves(self, m: Match) -> list[Move]:
        """The seat to act's legal actions as records (discards as a template only)."""
        if m.to_act is None:
            return []
        table = m.table
        if table is not None:  # the play phase, inlined: it is most of the steps of a playout
            return act.plays_of(legal_plays(m.hands[m.to_act], m.trick, table))
        return self.legals[m.phase](self, m)

    def push(self, m: Match, seat: int, action: Action) -> None:
        """Apply in place. Every check comes before the first write."""
        if m.to_act is None:
            if m.phase == "waiting":
                raise IllegalAction(
                    "the match starts when every seat is taken", rule="ALL-2", code="not_started"
                )
            raise IllegalAction(
                "the match is over; nobody acts any more", rule=self.end_rule, code="match_over"
            )
        if seat != m.to_act:
            raise IllegalAction(
                "it is seat {to_act}'s turn, not seat {seat}'s",
                rule="ALL-1",
                code="not_your_turn",
                to_act=m.to_act,
                seat=seat,
            )
        m.log = []
        if m.table is not None and type(action) is act.Play:  # the play phase, inlined
            if action.no_trump:
                raise IllegalAction("'no_trump' is only for Le Rough's taker on the first lead", rule="RG-11")
            self.play_card(m, seat, action.card)
            return
        self.pushers[m.phase](self, m, seat, action)

    def discard_to_pile(self, m: Match, seat: int, action: Action, rule: str) -> None:
        """The taker puts ``kitty_size`` cards of his hand face down (F5-10, RG-10)."""
        if not isinstance(action, act.Discard):
            raise self.refuse(
                action, rule, "'{action}' is not possible now: discard {count} cards", count=self.kitty_size
            )
        n = action.cards.bit_count()
        if n != self.kitty_size:
            raise IllegalAction(
                "discard exactly {count} cards, not {given}", rule=rule, count=self.kitty_size, given=n
            )
        if action.cards & ~m.hands[seat]:
            missing = ", ".join(codes_of(action.cards & ~m.hands[seat]))
            raise IllegalAction(
                "you can only discard cards in your hand; you do not hold {missing}",
                rule=rule,
                missing=missing,
            )
        m.hands[seat] &= ~action.cards
        m.discards |= action.cards
        m.discarder = seat
        m.log.append({"type": "discard", "seat": seat, "count": n})
        m.log.append(
            {"type": "discarded", "seat": seat, "cards": codes_of(action.cards), "visible_to": [seat]}
        )

    def take_kitty(self, m: Match, taker: int) -> None:
        """The taker picks up the kitty (F5-10, RG-10); only he sees what it held."""
        m.log.append(
            {"type": "kitty_taken", "seat": taker, "cards": codes_of(m.kitty), "visible_to": [taker]}
        )
        m.hands[taker] |= m.kitty
        m.kitty = 0
        m.phase, m.to_act = "discard", taker

    def _legal_discard(self, m: Match) -> list[Move]:
        assert m.to_act is not None
        return [act.DiscardTemplate(self.kitty_size, m.hands[m.to_act])]

    def record_bid(self, m: Match, seat: int, action: Action) -> None:
        """A call of the auction, public: kept as the record, rendered only when read."""
        m.bids.append((seat, action))
        m.log.append((BID, seat, action))

    def refuse(self, action: Action, phase_rule: str, template: str, **params: object) -> IllegalAction:
        """An action of the wrong kind for this phase: ``template`` names it as ``{action}`` and says
        what is expected ("'{action}' is not possible now: bid or pass")."""
        return IllegalAction(
            template, phase_rule, "illegal_action", action=action.to_json()["type"], **params
        )

    # ----- trick play (ALL-4) --------------------------------------------------------
    def start_play(self, m: Match, leader: int) -> None:
        m.phase, m.leader, m.to_act = "play", leader, leader

    def table_for(self, m: Match) -> TrumpTable:
        raise NotImplementedError

    def _legal_play(self, m: Match) -> list[Move]:
        assert m.to_act is not None and m.table is not None
        return act.plays_of(legal_plays(m.hands[m.to_act], m.trick, m.table))

    def _push_play(self, m: Match, seat: int, action: Action) -> None:
        if action.__class__ is not act.Play:
            raise self.refuse(action, "ALL-4", "'{action}' is not possible now: it is time to play a card")
        assert isinstance(action, act.Play)
        if action.no_trump:
            raise IllegalAction("'no_trump' is only for Le Rough's taker on the first lead", rule="RG-11")
        self.play_card(m, seat, action.card)

    def play_card(self, m: Match, seat: int, c: int) -> None:
        """ALL-4: the card must be in the hand and follow the led (effective, ALL-5) suit if able."""
        table = m.table
        assert table is not None
        hand = m.hands[seat]
        if not hand & BIT[c]:
            raise IllegalAction("{card} is not in your hand", rule="ALL-4", card=CODES[c])
        trick = m.trick
        if trick:
            same = hand & table.follow[table.suit[trick[0]]]
            if same and not same & BIT[c]:
                raise IllegalAction(
                    "you must follow suit: you hold {cards}",
                    rule=self.follow_rule(m, trick[0]),
                    cards=", ".join(codes_of(same)),
                )
        m.hands[seat] = hand ^ BIT[c]
        m.played |= BIT[c]
        trick.append(c)
        m.log.append((PLAYED, seat, c))
        if c == m.called:
            self.called_card_played(m, seat, c)
        players = m.players  # an instance field: a class attribute costs a lookup when compiled
        if len(trick) < players:
            m.to_act = (seat + 1) % players
            return
        winner = (m.leader + trick_winner_index(trick, table)) % players
        done = (m.leader, tuple(trick), winner)
        m.tricks.append(done)
        m.tricks_won[winner] += 1
        m.log.append((TRICK, *done))
        m.trick = []
        if len(m.tricks) == self.hand_size:
            self.finish_hand(m, self.score_hand(m))
        else:
            m.leader = m.to_act = winner

    def follow_rule(self, m: Match, led: int) -> str:
        return "ALL-4"

    def called_card_played(self, m: Match, seat: int, c: int) -> None:
        """Hook: euchre's called card was just played (E5-8)."""

    # ----- end of a hand and of the match --------------------------------------------
    def score_hand(self, m: Match) -> JSON:
        raise NotImplementedError

    def finish_hand(self, m: Match, result: JSON) -> None:
        """Record the hand (public from now on, ALL-7), then end the match or deal again."""
        m.prev = LastHand(
            m.hand_number,
            result,
            m.dealer,
            tuple(m.dealt),
            m.kitty_dealt,
            m.discards,
            m.discarder,
            tuple(m.tricks),
            tuple(m.scores),
        )
        m.log.append((HAND_SCORED, m.prev))
        if m.seeded:  # the reveal: anyone can now check the commitment and re-derive the deal
            part = fair.server_part(m.key, m.hand_number)
            seed = fair.hand_seed(part, m.client_seeds)
            n = m.hand_number
            m.log.append({"type": "hand_seed", "hand": n, "server_part": part.hex(), "seed": seed.hex()})
        winners = self.match_winners(m, result)
        if winners is not None:
            m.winners = winners
            m.to_act = None
            m.phase = "over"
            m.table = None
            m.log.append({"type": "match_over", "winners": winners, "scores": m.scores[:]})
            # the key is no secret any more: every hand is played (docs/fairness.md)
            m.log.append(
                {"type": "match_key", "key": m.key.hex(), "commitment": fair.match_commitment(m.key)}
            )
            return
        # ALL-2: the deal passes one seat left every hand.
        self.start_hand(m, (m.dealer + 1) % self.players)

    def match_winners(self, m: Match, result: JSON) -> list[int] | None:
        raise NotImplementedError

    def team_seats(self, team: int) -> list[int]:
        return [s for s in range(self.players) if s % 2 == team]

    # ----- views (ALL-7) -------------------------------------------------------------
    def contract_view(self, m: Match, seat: int | None) -> JSON | None:
        raise NotImplementedError

    def extra_view(self, m: Match, seat: int | None) -> JSON:
        return {}

    def sort_for_display(self, m: Match, mask: int) -> list[str]:
        table = m.table
        if table is None:
            cards = sorted(cards_of(mask), key=lambda c: (c // 11, -(c % 11)))
        else:
            keys = table.win_key
            cards = sorted(cards_of(mask), key=lambda c: (table.suit[c], -keys[table.suit[c]][c]))
        return [CODES[c] for c in cards]

    def view(self, m: Match, seat: int | None) -> JSON:
        """What ``seat`` may see (None: a spectator), and nothing more (ALL-7)."""
        out: JSON = {
            "kind": self.id,
            "phase": m.phase,
            "to_act": m.to_act,
            "seat": seat,
            "players": self.players,
            "dealer": m.dealer,
            "hand_number": m.hand_number,
            "options": dict(m.options),
            "hand": self.sort_for_display(m, m.hands[seat]) if seat is not None else [],
            "hand_sizes": [h.bit_count() for h in m.hands],
            "bids": [{"seat": s, **b.to_json()} for s, b in m.bids],
            "contract": self.contract_view(m, seat),
            "trump": self.trump_name(m),
            "current_trick": [
                {"seat": (m.leader + i) % self.players, "card": CODES[c]} for i, c in enumerate(m.trick)
            ]
            if m.phase == "play"
            else [],
            "tricks": [
                {"leader": ld, "cards": [CODES[c] for c in cs], "winner": w} for ld, cs, w in m.tricks
            ],
            "tricks_won": m.tricks_won[:],
            "scores": m.scores[:],
            "last_hand": m.last_hand,
            "winners": m.winners[:] if m.winners is not None else None,
        }
        if seat is not None and m.discarder == seat:
            out["my_discards"] = codes_of(m.discards)
        if seat is not None and seat == m.taker and self.kitty_to_taker and m.phase != "bidding":
            out["kitty_taken"] = [CODES[c] for c in m.kitty_dealt]  # he picked it up (F5-10, RG-10)
        if m.phase != "waiting":  # before the start nothing is dealt: no upcard, no game extras
            out.update(self.extra_view(m, seat))
        return out

    def trump_name(self, m: Match) -> str | None:
        if m.no_trump:
            return "NT"
        return "SCDH"[m.trump] if m.trump is not None else None

    # ----- serialisation -------------------------------------------------------------
    def state_json(self, m: Match) -> JSON:
        return {
            "game": m.game,
            "options": m.options,
            "key": m.key.hex(),
            "client_seeds": list(m.client_seeds),
            "seeded": m.seeded,
            "hand_number": m.hand_number,
            "dealer": m.dealer,
            "phase": m.phase,
            "to_act": m.to_act,
            "hands": [codes_of(h) for h in m.hands],
            "dealt": [codes_of(h) for h in m.dealt],
            "kitty": codes_of(m.kitty),
            "kitty_dealt": [CODES[c] for c in m.kitty_dealt],
            "discards": codes_of(m.discards),
            "discarder": m.discarder,
            "bids": [[s, b.to_json()] for s, b in m.bids],
            "high_bid": m.high_bid,
            "high_bidder": m.high_bidder,
            "turns": m.turns,
            "taker": m.taker,
            "trump": m.trump,
            "level": m.level,
            "no_trump": m.no_trump,
            "called": CODES[m.called] if m.called is not None else None,
            "partner": m.partner,
            "alone": m.alone,
            "revealed": m.revealed,
            "leader": m.leader,
            "trick": [CODES[c] for c in m.trick],
            "tricks": [[ld, [CODES[c] for c in cs], w] for ld, cs, w in m.tricks],
            "tricks_won": m.tricks_won,
            "scores": m.scores,
            "last_hand": m.last_hand,
            "winners": m.winners,
        }

    def state_from_json(self, d: JSON) -> Match:
        m = Match.__new__(Match)

        def cards(codes: list[str]) -> int:
            return mask_of(CARD_OF[c] for c in codes)

        m.game, m.options = d["game"], self.validate_options(d["options"])
        m.key = bytes.fromhex(d["key"]) if "key" in d else fair.key_of_int(d["seed"])
        m.players = self.players
        m.client_seeds = tuple(d.get("client_seeds", ("",) * self.players))
        m.seeded = d.get("seeded", True)
        m.hand_number, m.dealer, m.phase, m.to_act = d["hand_number"], d["dealer"], d["phase"], d["to_act"]
        m.hands = [cards(h) for h in d["hands"]]
        m.dealt = [cards(h) for h in d["dealt"]]
        m.kitty = cards(d["kitty"])
        m.kitty_dealt = tuple(CARD_OF[c] for c in d["kitty_dealt"])
        m.discards, m.discarder = cards(d["discards"]), d["discarder"]
        m.bids = [(s, act.parse(b)) for s, b in d["bids"]]
        m.high_bid, m.high_bidder, m.turns = d["high_bid"], d["high_bidder"], d["turns"]
        m.taker, m.trump, m.level, m.no_trump = d["taker"], d["trump"], d["level"], d["no_trump"]
        m.called = CARD_OF[d["called"]] if d["called"] is not None else None
        m.partner, m.alone, m.revealed, m.leader = d["partner"], d["alone"], d["revealed"], d["leader"]
        m.trick = [CARD_OF[c] for c in d["trick"]]
        m.tricks = [(ld, tuple(CARD_OF[c] for c in cs), w) for ld, cs, w in d["tricks"]]
        m.played = mask_of(m.trick) | mask_of(c for _, cs, _ in m.tricks for c in cs)
        m.tricks_won, m.scores = list(d["tricks_won"]), list(d["scores"])
        m.prev = LastHand.from_json(d["last_hand"]) if d["last_hand"] is not None else None
        m.winners, m.log = d["winners"], []
        m.table = self.table_for(m) if m.phase == "play" and (m.trump is not None or m.no_trump) else None
        return m
