"""The three games as OpenSpiel Python games: one hand each, the deal by chance, the engine's rules.

Importing this module registers ``python_atout_five_hundred``, ``python_atout_rough`` and
``python_atout_euchre5`` (:data:`NAMES`); then ``pyspiel.load_game("python_atout_rough")`` gives the
game, and OpenSpiel's Python algorithms (``open_spiel.python.algorithms.ismcts``, ``mcts``) play it.
OpenSpiel's C++ IS-MCTS does not run Python games: use the Python one.

- **Chance**: one chance node per card dealt, in the engine's deal order from the left of the
  dealer (``Game.deal_targets``: packets to each seat and to the kitty, F5-3, RG-5, E5-3), each
  outcome a card id of the action space's card order (``ActionSpace.cards``), uniform over the cards
  not dealt yet. The dealer is the ``dealer`` parameter (0 by default); the other parameters are the
  game's options (docs/rules.md), at their defaults unless given.
- **Players**: the seats; actions are the ids of ``atout.learn.spaces.action_space`` (a discard as
  N picks). One hand is the whole game; a hand everybody passes ends it with zero returns.
- **Returns**: each seat's *margin* of the hand (atout.learn.table: its points minus the mean of its
  opponents'), zero-sum.
- **Information state**: the string is the seat's whole view (``engine.view``, which holds the
  auction and every trick in order: perfect recall) with its picks, as sorted JSON; the tensor is the
  observation vector (atout.learn.encoding). The observation string is a short summary of the hand
  and the table. ``resample_from_infostate`` deals the cards the seat cannot see again with
  ``engine.sample_match`` (which keeps every void shown, the euchre called card and the partner the
  seat knows) and replays the public history on that deal.
- **Search**: OpenSpiel's ``mcts.RandomRolloutEvaluator`` works as is; :class:`BotRollout` rolls out
  with a built-in bot instead, and :func:`bot_ids` turns a bot's action into ids (a discard as picks).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel  # optional dependency: the `openspiel` extra
from open_spiel.python.algorithms import mcts  # optional dependency: the `openspiel` extra

import engine
from atout.learn.encoding import layout, observation, size
from atout.learn.spaces import GAMES, JSON, PICK, action_space
from atout.learn.table import MAX_MARGIN, Table
from workers import bots

NAMES: dict[str, str] = {game: f"python_atout_{game}" for game in GAMES}
"""The registered OpenSpiel name of each game id."""


def _max_moves(game: str) -> int:
    g = engine.game(game)
    auction = 2 * g.players + 2 if game == "euchre5" else g.players
    return auction + g.kitty_size + g.players * g.hand_size


def _game_type(game: str) -> Any:
    g = engine.game(game)
    options = {name: spec.default for name, spec in g.option_specs.items()}
    return pyspiel.GameType(
        short_name=NAMES[game],
        long_name=f"Atout {g.name} (one hand)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=g.players,
        min_num_players=g.players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"dealer": 0, **options},
    )


def _game_info(game: str) -> Any:
    g = engine.game(game)
    return pyspiel.GameInfo(
        num_distinct_actions=action_space(game).size,
        max_chance_outcomes=len(g.deck),
        num_players=g.players,
        min_utility=-MAX_MARGIN[game],
        max_utility=MAX_MARGIN[game],
        utility_sum=0.0,
        max_game_length=len(g.deck) + _max_moves(game),
    )


class AtoutGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of an Atout game; the subclasses below fix which."""

    game_id = "rough"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(_game_type(self.game_id), _game_info(self.game_id), params or {})
        values = self.get_parameters()
        g = engine.game(self.game_id)
        self.dealer = int(values["dealer"])
        if not 0 <= self.dealer < g.players:
            raise ValueError(f"dealer must be a seat 0..{g.players - 1}, not {self.dealer}")
        self.options = g.validate_options({k: values[k] for k in g.option_specs})

    def new_initial_state(self) -> AtoutState:
        return AtoutState(self)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled (and deep-copied) as its OpenSpiel string, loaded again by name (issue 36):
        pyspiel's own pickling of a game rebuilds its C++ part only, not what ``__init__`` sets here."""
        return _loaded, (self.to_string(),)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> AtoutObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return AtoutObserver(self.game_id, kind)


class FiveHundredGame(AtoutGame):
    game_id = "five_hundred"


class RoughGame(AtoutGame):
    game_id = "rough"


class Euchre5Game(AtoutGame):
    game_id = "euchre5"


class AtoutState(pyspiel.State):  # type: ignore[misc]
    """A hand: the cards dealt so far by chance, then a ``Table`` over the engine's match."""

    def __init__(self, game: AtoutGame) -> None:
        super().__init__(game)
        self.game_id = game.game_id
        self.dealer = game.dealer
        self.options = game.options
        self.space = action_space(self.game_id)
        self.targets: tuple[int, ...] = engine.game(self.game_id).deal_targets(self.dealer)
        self.dealt: list[int] = []
        self.table: Table | None = None

    # ----- the OpenSpiel state API ------------------------------------------------------------
    def current_player(self) -> int:
        if self.table is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.table.to_act
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None and player == self.table.to_act
        return self.table.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(len(self.space.cards))) - set(self.dealt))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.table is None:
            self.dealt.append(int(action))
            if len(self.dealt) == len(self.targets):
                self.table = Table(engine.new_match(self.game_id, options=self.options, deal=self.deal()))
            return
        self.table.step(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.space.cards[action]}"
        a = self.space.action(action)
        return " ".join(str(v) for v in a.values())

    def is_terminal(self) -> bool:
        return self.table is not None and self.table.done

    def returns(self) -> list[float]:
        if self.table is None or not self.table.done:
            return [0.0] * self.num_players()
        return self.table.margins()

    def __str__(self) -> str:
        if self.table is None:
            return f"dealing: {' '.join(self.space.cards[c] for c in self.dealt)}"
        return repr(self.table.match)

    # ----- the deal -------------------------------------------------------------------------
    def deal(self) -> JSON:
        """The explicit deal (ALL-3) of the cards dealt by chance so far, all of them."""
        g = engine.game(self.game_id)
        hands: list[list[str]] = [[] for _ in range(g.players)]
        kitty: list[str] = []
        for target, c in zip(self.targets, self.dealt, strict=True):
            (kitty if target < 0 else hands[target]).append(self.space.cards[c])
        return {"dealer": self.dealer, "hands": hands, "kitty": kitty}

    def seen_cards(self, player: int) -> list[str]:
        """The cards dealt to ``player`` so far (all it knows while the deal goes on)."""
        return [self.space.cards[c] for t, c in zip(self.targets, self.dealt, strict=False) if t == player]

    # ----- determinization ------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> AtoutState:
        """A state ``player_id`` cannot tell from this one: the hidden cards dealt again."""
        seed = probability_sampler() if callable(probability_sampler) else random.random()
        rng = random.Random(int(float(seed) * 2**53))
        new = AtoutState(self.get_game())
        if self.table is None:
            return self._redeal(new, player_id, rng)
        sampled = engine.sample_match(engine.view(self.table.match, player_id), rng)
        cards = {code: i for i, code in enumerate(self.space.cards)}
        by_seat = [sorted(engine.cards.codes_of(h), key=cards.__getitem__) for h in sampled.dealt]
        kitty = [engine.cards.CODES[c] for c in sampled.kitty_dealt]
        for target in self.targets:
            new.apply_action(cards[(kitty if target < 0 else by_seat[target]).pop(0)])
        hidden = engine.cards.codes_of(sampled.discards) if sampled.discarder not in (None, player_id) else []
        for action in self.history()[len(self.targets) :]:
            seat = new.current_player()
            a = self.space.action(action)
            if seat != player_id and a["type"] in (PICK, "exchange"):
                assert new.table is not None
                pool = hidden or sorted(set(new.view_hand(seat)) - set(new.table.picked))
                code = pool.pop(0)
                action = (
                    self.space.pick(code)
                    if a["type"] == PICK
                    else self.space.index({"type": "exchange", "discard": code})
                )
            new.apply_action(action)
        return new

    def _redeal(self, new: AtoutState, player_id: int, rng: random.Random) -> AtoutState:
        mine = set(self.seen_cards(player_id))
        others = [c for c in range(len(self.space.cards)) if self.space.cards[c] not in mine]
        rng.shuffle(others)
        for target, c in zip(self.targets, self.dealt, strict=False):
            new.apply_action(c if target == player_id else others.pop())
        return new

    def view_hand(self, seat: int) -> list[str]:
        assert self.table is not None
        return list(engine.view(self.table.match, seat)["hand"])


class AtoutObserver:
    """OpenSpiel's observer of a game: the information state (perfect recall) or the observation."""

    def __init__(self, game_id: str, iig_obs_type: Any) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a seat's own observation is supported (public and its private cards)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(size(game_id), np.float32)
        self.dict = {f.name: self.tensor[f.start : f.start + f.size] for f in layout(game_id)}
        self.game_id = game_id

    def set_from(self, state: AtoutState, player: int) -> None:
        self.tensor.fill(0)
        if state.table is None:
            cards = {code: i for i, code in enumerate(state.space.cards)}
            for code in state.seen_cards(player):
                self.dict["hand"][cards[code]] = 1
            return
        self.tensor[:] = observation(state.table.view(player), state.table.picks_of(player))

    def string_from(self, state: AtoutState, player: int) -> str:
        if state.table is None:
            return f"seat {player} dealt {' '.join(state.seen_cards(player))}"
        view, picks = state.table.view(player), state.table.picks_of(player)
        if self.perfect_recall:
            return json.dumps({"view": view, "picked": picks}, sort_keys=True, separators=(",", ":"))
        table = " ".join(f"{p['seat']}:{p['card']}" for p in view["current_trick"])
        return (
            f"seat {player} phase {view['phase']} hand {' '.join(view['hand'])} picked {' '.join(picks)} "
            f"contract {json.dumps(view['contract'], sort_keys=True)} trump {view['trump']} "
            f"table {table} tricks {view['tricks_won']}"
        )


class BotRollout(mcts.Evaluator):  # type: ignore[misc]
    """An MCTS/IS-MCTS evaluator that plays the rest of the hand with a ``workers.bots`` level for
    every seat (``heuristic`` by default) instead of random moves: a stronger, slower rollout."""

    def __init__(self, level: str = "heuristic", seed: int = 0) -> None:
        if level not in bots.LEVELS:
            raise ValueError(f"unknown bot level {level!r}; known: {', '.join(bots.LEVELS)}")
        self.level, self.rng = level, random.Random(seed)

    def evaluate(self, state: AtoutState) -> npt.NDArray[np.float64]:
        s: AtoutState = state.clone()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(self.rng.choice(s.chance_outcomes())[0])
                continue
            for action in bot_ids(s, self.level, self.rng):
                s.apply_action(action)
        return np.array(s.returns(), np.float64)

    def prior(self, state: AtoutState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def bot_ids(state: AtoutState, level: str, rng: random.Random) -> list[int]:
    """The ids of a ``workers.bots`` level's next action for the seat to act: one id, or the picks
    that complete a discard (those already picked kept, the bot's own choice filling the rest)."""
    table = state.table
    seat = table.to_act if table is not None else None
    assert table is not None and seat is not None
    action = bots.choose(level, table.view(seat), table.legal_actions(seat), rng)
    if action["type"] != "discard":
        return [state.space.index(action)]
    count, hand = len(action["cards"]), table.view(seat)["hand"]
    rest = [c for c in [*action["cards"], *hand] if c not in table.picked]
    return [state.space.pick(c) for c in list(dict.fromkeys(rest))[: count - len(table.picked)]]


for _cls in (FiveHundredGame, RoughGame, Euchre5Game):
    pyspiel.register_game(_game_type(_cls.game_id), _cls)


def _loaded(name: str) -> AtoutGame:
    """The game of an OpenSpiel game string (``python_atout_rough(dealer=2,...)``), here so that
    unpickling a game imports this module, which registers the games."""
    game: AtoutGame = pyspiel.load_game(name)
    return game


def load(game: str, **params: Any) -> Any:
    """The OpenSpiel game of a game id ("rough", …), with parameters (``dealer``, the options)."""
    return pyspiel.load_game(NAMES[game], params)
