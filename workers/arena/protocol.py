"""The bot protocol: what a bot is told and what it answers, written once for the two places a bot
plays, the arena (``atout arena --a-cmd``, ``workers.arena.command``) and the service
(``atout bot run --cmd``, ``atout.runner``). A program in any language speaks it over its stdin and
stdout; a Python class hears the same messages as method calls (``on_game_start`` …, below).

**Lines.** One JSON object a line each way, UTF-8, ``\\n`` at the end, flushed; the bot's stderr is
its own (quoted when it fails). One process plays one seat of one game: it is started on the seat's
first turn and its stdin closes after ``game_end``, so partners never share a process (ALL-7).

**Protocol 1** (``VERSION``). Every message has a ``type``:

==============  ================================================================  ====================
message         fields                                                            the bot answers
==============  ================================================================  ====================
``hello``       ``protocol`` (1), ``host`` (``arena`` or ``runner``)              ``{"type": "hello",
                                                                                  "protocol": 1,
                                                                                  "name": "…"}``
``game_start``  ``game_id``, ``kind``, ``seat``, ``players``, ``options``,        nothing
                ``budget_s``
``your_turn``   ``game_id``, ``seat``, ``version``, ``hand``, ``budget_s``,       one action, e.g.
                ``view``, ``legal_actions``                                       ``{"type": "play",
                                                                                  "card": "AS"}``
``hand_end``    ``game_id``, ``seat``, ``hand``, ``result``, ``scores``           nothing
``game_end``    ``game_id``, ``seat``, ``winners``, ``scores``, ``reason``        nothing (stdin then
                                                                                  closes)
==============  ================================================================  ====================

``view`` and ``legal_actions`` are the seat's, as a ``your_turn`` notice of the service carries them
(a discard comes as a template ``{"type": "discard", "count": n, "choices": [...]}``, answered
``{"type": "discard", "cards": [n of them]}``). ``budget_s`` is the seconds the bot has to answer.
``game_id`` and ``version`` are the service's (``null`` in the arena: a local match has neither).
``hand_end`` comes once a hand is over, before the next ``your_turn`` (and before ``game_end``):
``result`` is the hand's result as the view's ``last_hand`` shows it, ``scores`` the match's scores
after it. ``game_end``'s ``reason``: ``finished`` (``winners`` and ``scores`` set), ``left`` (the
runner gave the seat up after a failure), ``stopped`` (the harness stopped first: no winners).

**Protocol 0** (``LEGACY``), the first, kept for the programs written for it (README,
``examples/bot.py``): no ``hello`` and no other message than the turn, which is
``{"view": …, "legal_actions": [...]}`` without ``type``; the answer is the action. A protocol 1
``your_turn`` holds the same two fields, so a bot may read both (``examples/bots/node/bot.js``).

**What is a failure.** An answer that is not one JSON object, an answer to a message that asks none,
a ``hello`` answered otherwise than with protocol 1, silence past ``budget_s``, a crash: the
harness's ``BotFailure`` (``garbage``, ``timeout``, ``crash``); an action the rules refuse
(``illegal``). The arena forfeits the match; the runner does as its ``on_failure`` says.

The Python form (:func:`wants_models`, :func:`as_models`, :func:`action_json`): a bot class whose
``decide`` annotates its view with a model of ``schema.views`` (``View``, ``RoughView``, …) is given
the view and the legal actions as those models; any other gets plain dicts, as always."""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from schema.actions import Action
from schema.views import LegalAction, View
from workers.arena.base import JSON, BotFailure

VERSION = 1
"""The protocol this harness speaks, said in its ``hello``."""
LEGACY = 0
"""The protocol before ``hello``: the turn alone, ``{"view", "legal_actions"}``."""
VERSIONS = (LEGACY, VERSION)
HOSTS = ("arena", "runner")
END_REASONS = ("finished", "left", "stopped")


@dataclass(frozen=True)
class Hello:
    """The first line: who is speaking, and the protocol. Answered with ``hello``."""

    type: ClassVar[str] = "hello"
    host: str
    protocol: int = VERSION


@dataclass(frozen=True)
class GameStart:
    """A game begins for this seat (told once, before its first turn)."""

    type: ClassVar[str] = "game_start"
    game_id: str | None
    kind: str
    seat: int
    players: int
    options: JSON
    budget_s: float


@dataclass(frozen=True)
class YourTurn:
    """The seat is to act: answered with one of ``legal_actions`` (a discard: its cards)."""

    type: ClassVar[str] = "your_turn"
    game_id: str | None
    seat: int
    version: int | None
    hand: int
    budget_s: float
    view: JSON = field(repr=False)
    legal_actions: list[JSON] = field(repr=False)


@dataclass(frozen=True)
class HandEnd:
    """A hand is over: its result (the view's ``last_hand``) and the match's scores after it."""

    type: ClassVar[str] = "hand_end"
    game_id: str | None
    seat: int
    hand: int
    result: JSON | None
    scores: list[int]


@dataclass(frozen=True)
class GameEnd:
    """The game is over for this seat; ``winners`` and ``scores`` when it was played to its end."""

    type: ClassVar[str] = "game_end"
    game_id: str | None
    seat: int
    winners: list[int] | None
    scores: list[int] | None
    reason: str


Message = Hello | GameStart | YourTurn | HandEnd | GameEnd
ASKS_AN_ANSWER = (Hello, YourTurn)
CALLBACKS: dict[type, str] = {GameStart: "on_game_start", HandEnd: "on_hand_end", GameEnd: "on_game_end"}
"""The optional methods of a Python bot class that hear the messages a program reads (runner and arena)."""


def to_json(message: Message) -> JSON:
    """A message as protocol 1 writes it: its fields after its ``type``."""
    return {"type": message.type, **asdict(message)}


def encode(message: Message, protocol: int) -> JSON | None:
    """The object written for ``message`` in ``protocol``, or None when that protocol has no such
    message (protocol 0 knows the turn alone)."""
    if protocol >= VERSION:
        return to_json(message)
    if isinstance(message, YourTurn):
        return {"view": message.view, "legal_actions": message.legal_actions}
    return None


def check_hello(answer: JSON) -> str:
    """The bot's name from its answer to ``hello``; a BotFailure when it is not a protocol 1 hello."""
    if answer.get("type") != "hello":
        raise BotFailure("garbage", f"the answer to hello is not a hello: {_short(answer)}")
    if answer.get("protocol") != VERSION:
        raise BotFailure(
            "garbage", f"the bot speaks protocol {answer.get('protocol')!r}; this harness speaks {VERSION}"
        )
    name = answer.get("name", "")
    return name if isinstance(name, str) else str(name)


def check_action(answer: JSON) -> JSON:
    """A turn's answer: an object with a ``type`` (whether the rules allow it is the engine's word)."""
    if not isinstance(answer.get("type"), str) or answer.get("type") == "hello":
        raise BotFailure("garbage", f"the answer is not an action (no action type): {_short(answer)}")
    return answer


def fallback_action(legal: list[JSON]) -> JSON:
    """A legal move whatever the bot did: a pass when one is legal (a fallback never bids), else the
    first legal action, a discard template's first ``count`` cards."""
    for action in legal:
        if action["type"] == "pass":
            return dict(action)
    action = legal[0]
    if action["type"] == "discard":
        return {"type": "discard", "cards": list(action["choices"][: action["count"]])}
    return dict(action)


def _short(answer: object) -> str:
    text = repr(answer)
    return text if len(text) <= 200 else text[:200] + "…"


class SeatFeed:
    """The messages of one seat of one game, from the views it is shown: ``game_start`` before its
    first turn, ``hand_end`` when a view shows a hand finished since the last one told (its
    ``last_hand``), then the turn; at the end, the last ``hand_end`` and ``game_end``. Kept apart
    from any I/O: the arena's program, the runner's program and the runner's Python class are fed
    from it alike."""

    def __init__(self, game_id: str | None, seat: int, budget_s: float) -> None:
        self.game_id, self.seat, self.budget_s = game_id, seat, budget_s
        self.started = False
        self.ended = False
        self.told_hand = 0
        """The last hand whose end was told (hands before the seat's first turn are not)."""

    def turn(self, view: JSON, legal: list[JSON], version: int | None) -> list[Message]:
        """What to tell before asking, then the turn itself (last)."""
        messages: list[Message] = []
        hand = int(view.get("hand_number", 0))
        if not self.started:
            self.started, self.told_hand = True, hand - 1
            messages.append(
                GameStart(
                    self.game_id,
                    str(view.get("kind", "")),
                    self.seat,
                    int(view.get("players", 0)),
                    dict(view.get("options") or {}),
                    self.budget_s,
                )
            )
        messages += self._hand_end(view)
        messages.append(YourTurn(self.game_id, self.seat, version, hand, self.budget_s, view, legal))
        return messages

    def end(self, view: JSON | None, reason: str, winners: list[int] | None = None) -> list[Message]:
        """The last messages: the final hand's end (from the final ``view``, when there is one) and
        ``game_end``. Nothing for a seat never started (its bot never heard of the game), and
        nothing twice."""
        if not self.started or self.ended:
            return []
        self.ended = True
        messages = self._hand_end(view) if view is not None else []
        if view is not None and winners is None and view.get("winners") is not None:
            winners = list(view["winners"])
        scores = list(view["scores"]) if view is not None and reason == "finished" else None
        messages.append(GameEnd(self.game_id, self.seat, winners, scores, reason))
        return messages

    def _hand_end(self, view: JSON) -> list[Message]:
        last = view.get("last_hand")
        number = last.get("hand_number") if isinstance(last, dict) else None
        if not isinstance(number, int) or number <= self.told_hand:
            return []
        self.told_hand = number
        return [HandEnd(self.game_id, self.seat, number, last, list(view.get("scores") or []))]


# --- the Python form: the same turn, as schema/'s models when the bot asks for them -------------------

VIEW: TypeAdapter[Any] = TypeAdapter(View)
LEGAL: TypeAdapter[list[Any]] = TypeAdapter(list[LegalAction])
ACTION: TypeAdapter[Any] = TypeAdapter(Action)


def _is_model(hint: object) -> bool:
    if inspect.isclass(hint):
        return issubclass(hint, BaseModel)
    origin = get_origin(hint)
    if origin is Annotated:
        return _is_model(get_args(hint)[0])
    if origin is Union or origin is types.UnionType:
        members = [arg for arg in get_args(hint) if arg is not type(None)]
        return bool(members) and all(_is_model(arg) for arg in members)
    return False


def wants_models(cls: type) -> bool:
    """Whether ``cls.decide`` annotates its view (its first argument) with a pydantic model, or a
    union of them (``schema.views.View``): then it is given models; otherwise (no annotation,
    ``dict``, an annotation that cannot be read) plain dicts, as every bot before."""
    method = getattr(cls, "decide", None)
    if not callable(method):
        return False
    try:
        names = [p for p in inspect.signature(method).parameters if p != "self"]
        hints = typing.get_type_hints(method)
    except (TypeError, ValueError, NameError, AttributeError):
        return False
    return bool(names) and _is_model(hints.get(names[0]))


def as_models(view: JSON, legal: list[JSON]) -> tuple[Any, list[Any]]:
    """A view and its legal actions (the engine's dicts) as schema/'s models."""
    return VIEW.validate_python(view), LEGAL.validate_python(legal)


def action_json(answer: object) -> JSON:
    """A Python bot's answer as the API's JSON: a model (``schema.actions``) dumped, a dict as it is;
    anything else is ``garbage``; an object that is no action of the API (``{"type": "dance"}``, a
    card ``"XX"``) is ``illegal``, with the contract's reason."""
    if isinstance(answer, BaseModel):
        answer = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(answer, dict):
        raise BotFailure("garbage", f"the answer is not a JSON object: {_short(answer)}")
    check_action(answer)
    try:
        ACTION.validate_python(answer)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        raise BotFailure(
            "illegal", f"{_short(answer)} is no action of the API ({where}: {first.get('msg')})"
        ) from None
    return answer
