# mypy: disable-error-code="misc,valid-type,untyped-decorator,no-any-return"
"""GraphQL types generated from the pydantic models of ``schema.views`` and ``schema.actions``: the
views, legal actions, actions, events and options have one definition, and GraphQL, the OpenAPI
document and the tests all read it (a field added there appears in both APIs).

Why interfaces rather than bare unions: a client asks ``view { phase hand … on EuchreView { upcard } }``
— the fields every member shares are selectable without a fragment. The interfaces:

- ``GameView``: what every game's view holds (``ViewCommon`` and ``game``); one type per game.
- ``GameAction``: an action as sent, offered (a legal action; the discard as a template) or shown
  in the bidding (``SeatedBid`` … with the seat).
- ``Event``: what every event type has (its ``type``). The events themselves are the union
  ``GameEvent`` (REST's ``GameEvent``, the same members): a move's ``events`` and the stream's
  envelope (``EventEnvelope { id version event }``) hold it, and ``__typename`` is the event's
  type name (``CardPlayed`` for ``CARD_PLAYED``), as GitHub's timeline items are a union.
- ``GameOptions``: a game's rule options, one type per game.

Every closed set is a GraphQL enum (:func:`enum_for`): a Literal field (a suit, a phase, a game's
kind, an event's ``type``) or a ``StrEnum`` field, its values UPPER_CASE (``five_hundred`` is
``FIVE_HUNDRED``, docs/glossary.md) and each standing for the lower-case string REST sends; every
moment (a ``datetime`` field) is the ``DateTime`` scalar, an RFC 3339 string in UTC.

The same generator makes the types of the other bodies both APIs answer with (a game, a player, a
rating, a tournament, a webhook: ``schema.graphql_bodies``): a model's :class:`Shape` says only what
GraphQL says otherwise (its name, the fields that are ids, a field typed otherwise), so no type is
written twice; :func:`build` fills a generated type from the model's instance or its JSON."""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NewType, Union, get_args, get_origin

import strawberry
from pydantic import BaseModel
from strawberry.types.scalar import ScalarDefinition
from typing_extensions import TypeAliasType

import engine
from schema import actions, kinds, views
from schema.moments import rfc3339
from schema.views.common import Denomination


def _members(annotation: Any) -> list[Any]:
    return [_bare(member) for member in get_args(annotation) if member is not type(None)]


def _bare(annotation: Any) -> Any:
    """``annotation`` without its ``Annotated`` metadata and named aliases (``views.GameEvent``)."""
    while isinstance(annotation, TypeAliasType) or get_origin(annotation) is Annotated:
        annotation = (
            annotation.__value__ if isinstance(annotation, TypeAliasType) else get_args(annotation)[0]
        )
    return annotation


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _card(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(actions.CARD_PATTERN, value):
        raise ValueError("a card is two characters, its rank then its suit: AS, TH, 4D, or BJ/RJ")
    return value


def _moment(value: object) -> str:
    """A moment as GraphQL sends it: RFC 3339 in UTC (``2026-12-06T09:21:55Z``), from a ``datetime``,
    the JSON string a model wrote, or POSIX seconds (the store's form)."""
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return rfc3339(datetime.fromtimestamp(value, UTC))
    return str(value)


def _parse_moment(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError("a DateTime is an RFC 3339 string: 2026-12-06T09:21:55Z")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("a DateTime is an RFC 3339 string: 2026-12-06T09:21:55Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


Card = NewType("Card", str)
# Typed as StrawberryConfig's scalar_map takes it (Mapping[object, …]): a dict inferred as keyed by
# type[Card] is not one, a Mapping's key type being invariant.
SCALARS: dict[object, ScalarDefinition] = {
    Card: strawberry.scalar(
        name="Card",
        description="A card: its rank (A K Q J T 9 8 7 6 5 4) then its suit (S spades, C clubs, D "
        "diamonds, H hearts): `AS`, `TH`, `4D`; Le 500's jokers are `BJ` (black) and `RJ` (red). Each "
        "game's deck is in `rules { deck }`.",
        serialize=str,
        parse_value=_card,
    ),
    datetime: strawberry.scalar(
        name="DateTime",
        description="A moment: an RFC 3339 string in UTC, `2026-12-06T09:21:55Z` (milliseconds when it "
        "has them: `2026-12-06T09:21:55.123Z`).",
        serialize=_moment,
        parse_value=_parse_moment,
    ),
}
"""The schema's own scalars (``StrawberryConfig.scalar_map``)."""


def _annotation(field: Any) -> Any:
    """A field's annotation, a card field's as ``CARD`` (pydantic keeps a top-level ``CARD``'s
    constraints on the field and leaves a bare ``str``)."""
    if field.annotation is str and field.examples == CARD_EXAMPLES:
        return actions.CARD
    return field.annotation


CARD_EXAMPLES = get_args(actions.CARD)[1].examples

OPTIONS_OF_GAME: dict[str, type[BaseModel]] = {
    "five_hundred": views.FiveHundredOptions,
    "rough": views.RoughOptions,
    "euchre5": views.EuchreOptions,
}


def enum_value(value: str) -> str:
    """The GraphQL name of an enum's wire value: UPPER_CASE (``five_hundred`` → ``FIVE_HUNDRED``)."""
    return re.sub(r"[^0-9A-Za-z_]", "_", value).upper()


ENUMS: dict[str, Any] = {}
"""Every GraphQL enum of the schema by name (:func:`enum_for` makes or finds them)."""
NAMED: list[tuple[Any, str]] = []
"""The Literals with a name of their own: wherever one is, it is that enum (``schema.kinds``)."""
CONCEPTS: dict[str, tuple[str, ...]] = {}
"""By field name, the enums a Literal of that name is one of (the first holding all its values): a
game's ``status`` is a ``GameStatus`` although a turn's can only be ``active`` or ``finished``."""
FAMILIES: dict[tuple[str, str], str] = {}
"""By (interface, field), the enum that interface's field is: its members' fields are that enum too
(GraphQL wants a member's field the interface's type), an event's ``type`` an ``EventType``."""


def enum_named(name: str, values: Iterable[str], description: str) -> Any:
    """The GraphQL enum ``name`` of ``values`` (made once: a second call must give the same values)."""
    ordered = list(dict.fromkeys(values))
    if name in ENUMS:
        if [member.value for member in ENUMS[name]] != ordered:
            raise TypeError(f"enum {name} declared twice with different values")
        return ENUMS[name]
    members: Any = enum.Enum(name, {enum_value(value): value for value in ordered})
    ENUMS[name] = strawberry.enum(members, description=description)
    return ENUMS[name]


def enum_of(literal: Any, name: str, description: str) -> Any:
    """A GraphQL enum of a Literal's values, used wherever that Literal is (an exact match)."""
    made = enum_named(name, get_args(literal), description)
    NAMED.append((literal, name))
    return made


def _values(annotations: Iterable[Any]) -> list[str]:
    """Every value of the Literals in ``annotations`` (through Optional), in order, once."""
    found: list[str] = []
    for annotation in annotations:
        annotation = _bare(annotation)
        for member in get_args(annotation) if _is_union(annotation) else (annotation,):
            if get_origin(_bare(member)) is Literal:
                found.extend(get_args(_bare(member)))
    return list(dict.fromkeys(found))


def _field_values(models: Iterable[type[BaseModel]], name: str) -> list[str]:
    return _values(model.model_fields[name].annotation for model in models if name in model.model_fields)


def field_values(models: Iterable[type[BaseModel]], name: str) -> list[str]:
    """Every value field ``name`` of ``models`` may take (their Literals), in order, once."""
    return _field_values(models, name)


def members(union: Any) -> list[Any]:
    """The members of a union (through ``Annotated`` and ``None``)."""
    return _members(_bare(union))


def _pascal(name: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in name.split("_"))


def enum_for(literal: Any, place: tuple[type[BaseModel], str] | None) -> Any:
    """The GraphQL enum of a closed set at ``place`` (the model and field it types): its interface's
    (the family's), its name's (``schema.kinds``), its concept's (by field name), else one of its own
    named after the type and the field (``LeaveResultOutcome``)."""
    if isinstance(literal, type) and issubclass(literal, enum.Enum):  # a StrEnum: its own name
        return enum_named(literal.__name__, [m.value for m in literal], _described_enum(literal))
    values = set(get_args(literal))
    model, field = place if place is not None else (None, "")
    # ViewCommon's own fields make GameView: no interface yet (its kind and phase are set there)
    for face in interfaces_of(model) if model not in (None, views.ViewCommon) else ():
        family = FAMILIES.get((face.__name__, field))
        if family is not None and values <= {m.value for m in ENUMS[family]}:
            return ENUMS[family]
    for named, name in NAMED:
        if named == literal:
            return ENUMS[name]
    for name in CONCEPTS.get(field, ()):
        if values <= {m.value for m in ENUMS[name]}:
            return ENUMS[name]
    if model is None:
        raise TypeError(f"no enum for {literal!r} outside a model")
    owner = SHAPES.get(model, Shape()).name or model.__name__
    return enum_named(
        f"{owner}{_pascal(field)}", get_args(literal), f"The values of `{_camel(field)}` in `{owner}`."
    )


def _described_enum(kind: type) -> str:
    return " ".join((kind.__doc__ or kind.__name__).replace("``", "`").split())


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


_VIEWS = _members(_bare(views.View))
_ACTIONS = [
    *_members(_bare(actions.Action)),
    *_members(_bare(views.LegalAction)),
    *(
        m
        for e in (views.FiveHundredBidEntry, views.RoughBidEntry, views.EuchreBidEntry)
        for m in _members(_bare(e))
    ),
]
GameKind = enum_of(kinds.GameKind, "GameKind", "Which game a game plays (docs/rules.md): open to additions.")
GameStatus = enum_of(
    kinds.GameStatus, "GameStatus", "A game's state: WAITING (seats open), ACTIVE, FINISHED."
)
enum_of(
    kinds.SeatKind,
    "SeatKind",
    "Who holds a seat: nobody yet (OPEN), the player a rematch keeps it for "
    "(RESERVED), an account playing through the API (HUMAN), or a built-in bot (BOT).",
)
enum_of(kinds.BotLevel, "BotLevel", "A built-in bot's level.")
Suit = enum_of(Denomination, "Suit", "A suit (S spades, C clubs, D diamonds, H hearts), or NT: no trump.")
Phase = enum_named(
    "Phase", _field_values(_VIEWS, "phase"), "Where a hand is: each game's phases (docs/rules.md)."
)
ActionType = enum_named(
    "ActionType", _field_values(_ACTIONS, "type"), "An action's `type`: what the seat does (docs/rules.md)."
)
EventType = enum_named(
    "EventType",
    _field_values(views.EVENT_BODIES, "type"),
    "An event's `type`, its type's name in UPPER_CASE (`CardPlayed`: CARD_PLAYED): open to additions, "
    "a client skips an event whose type it does not know.",
)
CONCEPTS.update(
    game=("GameKind",),
    kind=("GameKind",),
    id=("GameKind",),
    phase=("Phase",),
    suit=("Suit",),
    trump=("Suit",),
    status=("GameStatus",),
    seat_kind=("SeatKind",),
    level=("BotLevel",),
)
FAMILIES.update(
    {
        ("GameAction", "type"): "ActionType",
        ("LegalAction", "type"): "ActionType",
        ("Bid", "type"): "ActionType",
        ("Event", "type"): "EventType",
        ("GameEvent", "type"): "EventType",
        ("GameView", "phase"): "Phase",
        ("GameView", "game"): "GameKind",
        ("GameView", "kind"): "GameKind",
    }
)


@strawberry.interface(description="An action as a seat sends it (submitAction's answer repeats it).")
class GameAction:
    type: ActionType = strawberry.field(description="The action: what the seat does.")


@strawberry.interface(
    description="An action the seat may take now (legalActions): as it is sent, but the discard, "
    "offered as a template (`count` cards `from` these)."
)
class LegalAction:
    type: ActionType = strawberry.field(description="The action: what the seat may do.")


@strawberry.interface(
    description="What every event has: its `type` (its type's name in UPPER_CASE: `CardPlayed` is "
    "CARD_PLAYED). The events are the union `GameEvent`."
)
class Event:
    type: EventType = strawberry.field(description="What happened: its type's name, UPPER_CASE.")


@strawberry.interface(description="A game's rule options (see `rules`), one type per game.")
class GameOptions:
    target_score: int = strawberry.field(description="The score that ends the game.")


@strawberry.interface(description="A bid as the view shows it: the action and the seat that made it.")
class Bid:
    type: ActionType = strawberry.field(description="The bid: what the seat did.")
    seat: int = strawberry.field(description="The seat that made it.")


BIDS: frozenset[type[BaseModel]] = frozenset(
    member
    for entry in (views.FiveHundredBidEntry, views.RoughBidEntry, views.EuchreBidEntry)
    for member in _members(_bare(entry))
)


SENT: frozenset[type[BaseModel]] = frozenset(_members(_bare(actions.Action)))
OFFERED: frozenset[type[BaseModel]] = frozenset(_members(_bare(views.LegalAction)))


def interfaces_of(model: type[BaseModel]) -> tuple[type, ...]:
    """The interfaces ``model``'s GraphQL type implements (an action both sent and offered: two)."""
    if issubclass(model, views.ViewCommon):
        return (GameView,)
    if model in BIDS:
        return (Bid,)
    if model in SENT or model in OFFERED:
        return tuple(face for face, group in ((GameAction, SENT), (LegalAction, OFFERED)) if model in group)
    if issubclass(model, views.EventBody):
        return (Event,)
    if issubclass(model, tuple(OPTIONS_OF_GAME.values())):
        return (GameOptions,)
    return UNION_FACES.get(model, ())


UNION_FACES: dict[type[BaseModel], tuple[type, ...]] = {}
"""The interfaces :func:`union_interface` made, by member (a notice of both streams: two)."""


GENERATED: dict[type[BaseModel], type] = {}


@dataclass(frozen=True)
class Extra:
    """A field GraphQL types otherwise than its model (a game's ``options`` as the game's own options
    type, a tournament's as its ``target_score``): its GraphQL type, made by ``convert`` from the whole
    value the field is in; ``name`` when GraphQL names it otherwise."""

    graphql: Any
    convert: Callable[[Any], Any]
    name: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class Shape:
    """What the GraphQL type of a model says otherwise than the model: its name (``GameSummary`` is
    ``Game``), its description when the model has no docstring fit for GraphQL, its fields that are
    ids besides :data:`ID_FIELDS` (``id`` is a game's id, but a stream event's position), its
    :class:`Extra` fields by the model's name."""

    name: str | None = None
    description: str | None = None
    ids: frozenset[str] = frozenset()
    extras: Mapping[str, Extra] = dataclasses.field(default_factory=dict)


SHAPES: dict[type[BaseModel], Shape] = {}
ID_FIELDS = frozenset(
    {
        *("game_id", "bot_id", "player_id", "invitation_id", "rematch_id", "tournament_id", "account_id"),
        *("webhook_id", "from_player_id", "from_player", "game_ids", "player_ids"),
    }
)
"""The fields typed ``ID`` wherever they are: each names a resource (a game, a player …)."""


def graphql_type_of(
    model: type[BaseModel],
    name: str | None = None,
    *,
    description: str | None = None,
    ids: tuple[str, ...] = (),
    extras: Mapping[str, Extra] | None = None,
) -> Any:
    """The GraphQL type of ``model`` (made once), shaped as said: declare a model before any model that
    holds it, since a held model is made with its own shape when its holder is."""
    shape = Shape(name, description, frozenset(ids), extras or {})
    if model in GENERATED and SHAPES.get(model, Shape()) != shape:
        raise TypeError(f"{model.__name__} was generated before its shape was declared")
    SHAPES[model] = shape
    return object_type(model)


def read(value: Any, name: str, alias: str | None = None) -> Any:
    """A field of a model's instance, or of its JSON (by its JSON name): the resolvers hand either."""
    if isinstance(value, BaseModel):
        return getattr(value, name, None)
    return value.get(alias or name) if isinstance(value, dict) else None


def _scalar_union(annotation: Any) -> bool:
    """``int | str`` (an administrator's seed or a match key): GraphQL says it as its JSON text."""
    members = [m for m in get_args(annotation) if m is not type(None)] if _is_union(annotation) else []
    return len(members) > 1 and all(_bare(m) in (int, str) for m in members)


def _as_id(kind: Any) -> Any:
    """``kind`` with its strings as ``ID`` (through Optional and lists)."""
    if kind is str:
        return strawberry.ID
    if get_origin(kind) is Union:
        return typing.Optional[_as_id(next(a for a in get_args(kind) if a is not type(None)))]  # noqa: UP045
    if get_origin(kind) is list:
        return list[_as_id(get_args(kind)[0])]
    return kind


RENAMED: dict[type[BaseModel], dict[str, str]] = {views.ContractFixed: {"points": "bidPoints"}}
"""GraphQL names that differ from the JSON ones: two members of one family may not give one name two
shapes (``points`` is the bid in ``contract``, the hand's points per team in ``hand_scored``)."""


def graphql_name(model: type[BaseModel], name: str) -> str | None:
    """The GraphQL name of a field when it is not the camelCase of its JSON name."""
    field = model.model_fields[name]
    for base in model.__mro__:
        if name in RENAMED.get(base, {}):
            return RENAMED[base][name]
    return field.alias if field.alias and field.alias != name else None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (through Optional, lists and unions)."""
    annotation = _bare(annotation)
    if _is_union(annotation) or get_origin(annotation) is list:
        return [model for member in _members(annotation) for model in _models_in(member)]
    return [annotation] if isinstance(annotation, type) and issubclass(annotation, BaseModel) else []


def _nullable(annotation: Any) -> bool:
    annotation = _bare(annotation)
    return _is_union(annotation) and type(None) in get_args(annotation)


def _shape(annotation: Any) -> str:
    """What GraphQL compares of two same-named fields, nullability aside: a scalar, a list's shape, or
    an object (two object types may differ: their own fields are compared in their family)."""
    if annotation == actions.CARD:
        return "Card"
    annotation = _bare(annotation)
    if _is_union(annotation):
        members = _members(annotation)
        if all(isinstance(m, type) and issubclass(m, BaseModel) for m in members):
            return "object"
        single = [m for m in get_args(annotation) if m is not type(None)]
        return _shape(single[0]) if len(single) == 1 else repr(annotation)
    if get_origin(annotation) is list:
        return f"[{_shape(get_args(annotation)[0])}]"
    if get_origin(annotation) is Literal:
        return type(get_args(annotation)[0]).__name__
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    return getattr(annotation, "__name__", repr(annotation))


def _loosened(families: list[list[type[BaseModel]]] | None = None) -> dict[type[BaseModel], frozenset[str]]:
    """For each model, the fields made nullable in GraphQL although the model requires them.

    Why: GraphQL merges the fields of one response name across a selection's fragments and refuses a
    query where they differ in nullability (``... on SeatedBid { suit }`` is ``String``,
    ``... on SeatedNameTrump { suit }`` would be ``String!``). So within a family of types that may
    be selected side by side — an interface's members, and the types their same-named fields hold
    (each game's ``contract``, ``last_hand``, ``options``) — a field nullable in one member is
    nullable in all."""
    families = families or [
        [views.ViewCommon, *_members(_bare(views.View))],
        sorted(BIDS, key=lambda model: model.__name__),
        [*_members(_bare(views.LegalAction)), *_members(_bare(actions.Action))],
        list(views.EVENT_BODIES),
        list(OPTIONS_OF_GAME.values()),
    ]
    loosened: dict[type[BaseModel], set[str]] = {}
    while families:
        family = families.pop()
        names = {name for model in family for name in model.model_fields}
        for name in names:
            having = [
                model for model in family if name in model.model_fields and not graphql_name(model, name)
            ]
            annotations = [_annotation(model.model_fields[name]) for model in having]
            shapes = {repr(_bare(a)).replace("NoneType", "").replace("Optional", "") for a in annotations}
            if len({_shape(annotation) for annotation in annotations}) > 1:
                raise TypeError(f"`{name}` has two shapes in {family}: rename one in RENAMED ({shapes})")
            if len({_nullable(annotation) for annotation in annotations}) > 1:
                for model in having:
                    loosened.setdefault(model, set()).add(name)
            held = {model for annotation in annotations for model in _models_in(annotation)}
            if len(held) > 1:
                families.append(sorted(held, key=lambda model: model.__name__))
    return {model: frozenset(names) for model, names in loosened.items()}


def union_interface(name: str, union: Any, description: str, type_enum: str | None = None) -> type:
    """The interface ``name`` of the members of a tagged union of models (a notice of a stream): the
    fields all members have alike (``id``, ``type`` as the enum ``<name>Type`` of every member's, or
    ``type_enum`` when members are shared with another union: one enum for both, ``NoticeType``,
    declared first; ``game_id`` …), so that a client selects them without a fragment and narrows by
    ``__typename``. Declared before any member is made: each implements it."""
    members = _members(_bare(union))
    enum_name = type_enum or f"{name}Type"
    FAMILIES[(name, "type")] = enum_name
    if type_enum is None:
        said = f"A {name}'s `type`: open to additions (a client skips a type it does not know)."
        enum_named(enum_name, _field_values(members, "type"), said)
    for model, names in _loosened([list(members)]).items():
        LOOSENED[model] = LOOSENED.get(model, frozenset()) | names
    shared = set.intersection(*(set(model.model_fields) for model in members))
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    first = members[0]
    for field in (f for f in first.model_fields if f in shared):
        kinds = {repr(_bare(_annotation(m.model_fields[field]))) for m in members}
        if field != "type" and len(kinds) > 1:
            continue  # typed differently by member: selected on the member
        info = first.model_fields[field]
        if field == "type":
            kind: Any = ENUMS[enum_name]
        else:
            kind = graphql_type(_annotation(info), (first, field))
            if any(_nullable(m.model_fields[field].annotation) for m in members):
                kind = typing.Optional[kind]  # noqa: UP045
        namespace["__annotations__"][field] = _as_id(kind) if field in ID_FIELDS else kind
        namespace[field] = strawberry.field(description=info.description or field_said(first, field))
    face = strawberry.interface(type(name, (), namespace), description=description)
    for model in members:
        UNION_FACES[model] = (*UNION_FACES.get(model, ()), face)
    return face


def field_said(model: type[BaseModel], name: str) -> str | None:
    """A field's description when its model has none: a rule option's from the engine's rules, else
    the word's (:data:`FIELD_DOCS`), else the camelCase name of the field as a phrase."""
    for kind, options in OPTIONS_OF_GAME.items():
        if issubclass(model, options):
            doc = engine.games()[kind]["options"].get(name, {}).get("doc")
            if doc:
                return str(doc)
    return FIELD_DOCS.get(name)


@functools.cache
def game_event() -> Any:
    """``GameEvent``, the union of the event types (each implementing ``Event``): one type per event,
    the same in a move's answer and in the stream's envelope, as REST's ``GameEvent``."""
    members = tuple(object_type(model) for model in views.EVENT_BODIES)
    return Annotated[
        Union[members],  # noqa: UP007 (a runtime union of generated types)
        strawberry.union(
            "GameEvent",
            description="One event of a game, by its type (`__typename` is the type's name: CardPlayed); "
            "open to additions: a client skips a type it does not know.",
        ),
    ]


def graphql_type(annotation: Any, place: tuple[type[BaseModel], str] | None = None) -> Any:
    """The GraphQL type of a pydantic annotation (nullable where the model's is); ``place`` (the model
    and field it types) names the enum of a closed set (:func:`enum_for`)."""
    if annotation == actions.CARD:
        return Card
    if annotation is views.GameEvent:
        return game_event()
    annotation = _bare(annotation)
    if _scalar_union(annotation):
        return typing.Optional[str] if _nullable(annotation) else str  # noqa: UP045
    if _is_union(annotation):
        members = _members(annotation)
        nullable = len(members) < len(get_args(annotation))
        if len(members) == 1:
            inner = graphql_type(next(m for m in get_args(annotation) if m is not type(None)), place)
        else:
            inner = _shared_interface(members)
        return typing.Optional[inner] if nullable else inner  # noqa: UP045 (a runtime annotation)
    if get_origin(annotation) is list:
        return list[graphql_type(get_args(annotation)[0], place)]
    if get_origin(annotation) is Literal:
        closed = all(isinstance(value, str) for value in get_args(annotation))
        return enum_for(annotation, place) if closed else type(get_args(annotation)[0])
    if annotation in (int, str, bool, float, datetime):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, enum.StrEnum):
        return enum_for(annotation, place)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return object_type(annotation)
    raise TypeError(f"no GraphQL type for {annotation!r}")


def _shared_interface(members: list[Any]) -> Any:
    """The interface every member of a union of models implements (each member made)."""
    shared = set.intersection(*(set(interfaces_of(member)) for member in members))
    if not shared:
        raise TypeError(f"no interface shared by {members}")
    if len(shared) > 1:  # actions both sent and offered (a bid in an event): as sent
        shared = {GameAction}
    for member in members:
        object_type(member)
    return shared.pop()


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """A class namespace with the model's fields: their GraphQL types, JSON names and descriptions."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    loose = LOOSENED.get(model, frozenset())
    shape = SHAPES.get(model, Shape())
    for name, info in model.model_fields.items():
        if name in shape.extras:
            extra = shape.extras[name]
            namespace["__annotations__"][extra.name or name] = extra.graphql
            namespace[extra.name or name] = strawberry.field(
                description=extra.description or info.description or field_said(model, name), default=None
            )
            continue
        kind = graphql_type(_annotation(info), (model, name))
        if name in loose and not _nullable(info.annotation):
            kind = typing.Optional[kind]  # noqa: UP045 (a runtime annotation)
        namespace["__annotations__"][name] = _as_id(kind) if name in ID_FIELDS | shape.ids else kind
        namespace[name] = strawberry.field(
            name=graphql_name(model, name),
            description=info.description or field_said(model, name),
            default=None,
        )
    return namespace


def _described(model: type[BaseModel]) -> str | None:
    """A model's docstring on one line; without one, what its family says it is (an action, a bid, an
    event, a game's options), so that every GraphQL type is described."""
    said = " ".join((model.__doc__ or "").replace("``", "`").split())
    if said and model.__doc__ != BaseModel.__doc__:
        return said
    kind = get_args(_bare(model.model_fields["type"].annotation)) if "type" in model.model_fields else ()
    if kind and issubclass(model, views.EventBody):
        return f"The `{kind[0]}` event (docs/rules.md): what happened, as the seat may see it (ALL-7)."
    if kind and model in BIDS:
        return f"A `{kind[0]}` in this hand's bidding, with the seat that made it."
    if kind and (model in SENT or model in OFFERED):
        return f"The action `{kind[0]}` (docs/rules.md says when it is legal)."
    return TYPE_DOCS.get(model.__name__)


TYPE_DOCS = {
    "TrickCard": "A card played to a trick, with the seat that played it.",
    "FiveHundredOptions": "Le 500's rule options (see `rules`).",
    "RoughOptions": "Le Rough's rule options (see `rules`).",
    "EuchreOptions": "Five-handed euchre's rule options (see `rules`).",
    "FiveHundredContract": "Le 500's contract: the taker, the tricks bid, the suit, its value.",
    "RoughContract": "Le Rough's contract: the taker and the points bid.",
    "EuchreContract": "Five-handed euchre's contract: the maker, the called card, alone or not, the partner.",
    "FiveHundredHandResult": "How Le 500's last hand scored.",
    "RoughHandResult": "How Le Rough's last hand scored.",
    "EuchreHandResult": "How five-handed euchre's last hand scored.",
    "FiveHundredView": "Le 500's view of a seat (or a spectator): GameView's fields and Le 500's own.",
    "RoughView": "Le Rough's view of a seat (or a spectator): GameView's fields and Le Rough's own.",
    "EuchreView": "Five-handed euchre's view of a seat (or a spectator): GameView's fields and euchre's own.",
    "LegalActionsResponse": "The caller's seat, the game's version and what the seat may do now.",
    "LogEntry": "One event of a finished game's log, with the version it led to.",
}
"""The description of a model without a docstring fit for GraphQL (the bodies' are in their Shapes)."""


FIELD_DOCS: dict[str, str] = {
    "type": "What this is: its type's name in snake_case, UPPER_CASE here (open to additions).",
    "game_id": "The game's id.",
    "version": "The game's version: it grows by one with each change.",
    "hand_number": "The hand, counted from 1.",
    "seat": "A seat, 0 to n-1.",
    "kind": "Which game: FIVE_HUNDRED, ROUGH or EUCHRE5.",
    "game": "The game.",
    "suit": "A suit (S, C, D, H), or NT: no trump.",
    "trump": "The trump suit (NT: none) once it is known.",
    "name": "The name shown.",
    "card": "A card (see the Card scalar).",
    "cards": "Cards (see the Card scalar).",
    "target_score": "The score that ends the game.",
    "status": "The state: see its enum.",
    "deal": "The deal.",
    "tricks": "Tricks: a count of them, or this hand's finished tricks.",
    "players": "How many seats the table has.",
    "visible_to": "The seats that may see this (ALL-7); null: every seat.",
    "to_act": "The seat to act; null once the game is finished.",
    "options": "The game's rule options.",
    "winners": "The winning seats once the game is finished.",
    "points": "Points scored.",
    "current_trick": "The cards played to the trick in progress, in order.",
    "tournament_id": "The tournament's id.",
    "ticket_id": "The Play-now ticket's id.",
    "party_id": "The party's id.",
    "player_id": "The player's id.",
    "bot_id": "The bot account's id.",
    "invitation_id": "The invitation's id.",
    "account_id": "The account's id: a player or a bot.",
    "phase": "Where the hand is: see Phase.",
    "last_hand": "The last hand's result; null before the first is scored.",
    "games": "The games.",
    "created_at": "When it was created.",
    "expires_at": "When it expires.",
    "contract": "The hand's contract once bidding ends.",
    "bids": "This hand's bidding so far, in order.",
    "alone": "Whether the maker plays alone.",
    "action": "The action.",
    "your_turn": "Whether a seat of yours is to act now.",
    "view": "The seat's view.",
    "started": "Whether the game started with this (its last seat taken).",
    "seats": "The seats.",
    "rank": "The place on the ladder, 1 the best.",
    "entrant": "An entrant: `bot:<level>` or `account:<bot_id>`.",
    "count": "How many.",
    "attackers": "The seats of the side that made the contract.",
    "attacker_tricks": "Tricks the contract's side won.",
    "wins": "Games won.",
    "took": "Cards taken.",
    "table": "The seats and their cards.",
    "subject": "The identity's subject (`sub`).",
    "issuer": "The identity provider (`iss`).",
    "standings": "The entrants' lines, best first.",
    "sigma": "The rating's uncertainty (openskill sigma).",
    "mu": "The rating's mean (openskill mu).",
    "rounds": "How many rounds.",
    "round": "The round.",
    "reason": "Why.",
    "rating": "The rating.",
    "locale": "A BCP 47 language tag (`fr`, `en-CA`) for messages.",
    "listed": "Whether the game is in the open games.",
    "kitty": "The kitty's cards.",
    "index": "Its place, from 0.",
    "head_to_head": "Each entrant's record against each other.",
    "hands": "The hands played, in order.",
    "hand": "The seat's own cards.",
    "discards": "The cards discarded.",
    "discarder": "The seat that discards.",
    "discard": "Cards discarded.",
    "deals": "Duplicate deals a pairing plays.",
    "dealer": "The seat that deals this hand.",
    "commitment": "The hash committing to the hand's seed (docs/fairness.md).",
    "filled": "Whether someone holds the seat.",
    "entrants": "The entrants.",
    "format": "How entrants are paired.",
    "move_seconds": "The seconds a move may take.",
    "doc": "What it does.",
    "rule": "The docs/rules.md id.",
    "actions": "The actions.",
    "legal_actions": "What the seat may do now (a discard as a template).",
    "bid_points": "The contract's bid.",
    "partner": "The partner's seat, once known.",
    "opponent": "The other entrant.",
    "called": "The called card.",
    "board": "Which ladder: PEOPLE or BOTS.",
    "choices": "The cards to choose `count` of.",
    "from_": "The cards to choose from.",
    "url": "The endpoint's URL (https).",
    "event_types": "The message types the endpoint gets.",
    "event_type": "The message's type.",
    "description": "The operator's note.",
    "enabled": "Whether messages are sent (false: paused).",
    "webhook_id": "The webhook endpoint's id.",
    "webhook": "The webhook endpoint.",
    "dead_letter_id": "The dead letter's id.",
    "message_id": "The message's `webhook-id` (receivers dedup on it).",
    "attempt": "The attempt, from 1.",
    "attempts": "How many attempts were made.",
    "payload": "The message as it was sent.",
    "ci95_high": "The top of the 95% interval of the points per deal.",
    "ci95_low": "The bottom of the 95% interval of the points per deal.",
    "flagged_games": "Games flagged for a look (a bot that timed out, a forfeit).",
    "points_per_deal": "Points per deal against that entrant.",
    "game_ids": "The games' ids.",
    "key": "The match key, revealed once it ends (docs/fairness.md).",
    "server_part": "The server's part of the hand's seed (docs/fairness.md).",
    "event": "The event, the same object a move's answer gives.",
    "invite_code": "An unlisted game's invite code.",
    "identity_token": "A JWT of a trusted issuer.",
    "invitations": "Who may invite you: EVERYONE or NOBODY.",
    "contact": "How to reach the bot's author.",
    "expected_version": "The version the move was chosen at: another is 409 version_conflict.",
    "rated": "Whether the game counts for the ladders.",
}
"""What a field is when its model says nothing: one description per word, as docs/glossary.md has the
words (a ``game_id`` is a game's id wherever it is)."""


def object_type(model: type[BaseModel]) -> type:
    """The Strawberry object type of ``model``, made once; it implements the model's interface."""
    if model in GENERATED:
        return GENERATED[model]
    shape = SHAPES.get(model, Shape())
    made = strawberry.type(
        type(shape.name or model.__name__, interfaces_of(model), _fields(model)),
        description=shape.description or _described(model),
    )
    GENERATED[model] = made
    return made


LOOSENED = _loosened()
_common = _fields(views.ViewCommon)
_KIND = "kind" if all("kind" in view.model_fields for view in _VIEWS) else "game"
_common["__annotations__"][_KIND] = GameKind
_common[_KIND] = strawberry.field(default=None, description="Which game this view is of.")
_common["__annotations__"]["phase"] = Phase
_common["phase"] = strawberry.field(
    default=None, description=views.ViewCommon.model_fields["phase"].description or "Where the hand is."
)
# Fields each game's view has, of one type (or one interface) in all three: selectable without a
# fragment. (`contract` and `last_hand` differ per game: select them on the game's view.)
_common["__annotations__"].update(bids=list[Bid], trump=typing.Optional[Suit], options=GameOptions)  # noqa: UP045
_common.update(
    bids=strawberry.field(default=None, description="This hand's bidding so far, in order."),
    trump=strawberry.field(default=None, description="The trump suit (NT: none) once it is known."),
    options=strawberry.field(default=None, description="The game's rule options."),
)
GameView = strawberry.interface(type("GameView", (), _common), description=_described(views.ViewCommon))


def build(annotation: Any, value: Any) -> Any:
    """An instance of ``graphql_type(annotation)`` from a value the model validates (its instance, or
    its JSON): a union's member is the one whose ``type`` (or ``game``) literal the value names."""
    return builder(annotation)(value)


Builder = Callable[[Any], Any]

_BUILDERS: dict[tuple[Any, Any], Builder] = {}


def builder(annotation: Any, made: type | None = None) -> Builder:
    """:func:`build` of ``annotation`` as a function of the value, planned once per annotation: what
    the annotation is (a list, a union and how its members are told apart, a model and its fields) is
    worked out here, not for every value of every answer. A move's answer holds hundreds of values (a
    view, its cards and bids, the legal actions): built value by value with the annotation taken apart
    each time, GraphQL's move spent most of its time here (issue 38)."""
    key = (annotation, made)
    found = _BUILDERS.get(key)
    if found is None:
        found = _BUILDERS[key] = _plan(_bare(annotation), made)
    return found


def _plan(annotation: Any, made: type | None) -> Builder:
    if _scalar_union(annotation):
        return lambda value: None if value is None else str(value)
    if _is_union(annotation):
        return _union_builder(_members(annotation))
    if get_origin(annotation) is list:
        item = builder(get_args(annotation)[0])
        return lambda value: None if value is None else [item(entry) for entry in value]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _object_builder(annotation, made)
    return lambda value: value


def _union_builder(members: list[Any]) -> Builder:
    """The member's builder for each value: the member the value is an instance of, or whose ``type``,
    ``game`` or ``kind`` literal it names, tried in the union's order."""
    if len(members) == 1:
        return builder(members[0])
    tells = [(member, _literals(member), builder(member)) for member in members]

    def build_member(value: Any) -> Any:
        if value is None:
            return None
        for member, literals, build_it in tells:
            if isinstance(value, member) or any(read(value, key) in said for key, said in literals):
                return build_it(value)
        raise ValueError(f"no member of {members!r} for {read(value, 'type') or read(value, 'game')!r}")

    return build_member


def _literals(member: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """The fields that tell ``member`` from the other members of its union, and their values."""
    fields = getattr(member, "model_fields", {})
    keys = [key for key in ("type", "game", "kind") if key in fields]
    return [(key, get_args(_bare(fields[key].annotation))) for key in keys]


def _object_builder(model: type[BaseModel], made: type | None) -> Builder:
    """The generated type of ``model`` (or ``made``, a type of the same fields: a payload) filled from a
    value: each field built from the value's, an :class:`Extra` made from the whole value."""
    extras = SHAPES.get(model, Shape()).extras
    plain: list[tuple[str, str, Builder]] = []
    converted: list[tuple[str, Callable[[Any], Any]]] = []
    for name, info in model.model_fields.items():
        if name in extras:
            converted.append((extras[name].name or name, extras[name].convert))
        else:
            plain.append((name, info.alias or name, builder(info.annotation)))
    kind: type | None = made

    def build_object(value: Any) -> Any:
        nonlocal kind
        if value is None:
            return None
        # :func:`read` per field, with the value's kind decided once rather than for every field
        if isinstance(value, BaseModel):
            fields = {name: build_it(getattr(value, name, None)) for name, _, build_it in plain}
        elif isinstance(value, dict):
            fields = {name: build_it(value.get(alias)) for name, alias, build_it in plain}
        else:
            fields = {name: build_it(None) for name, _, build_it in plain}
        for name, convert in converted:
            fields[name] = convert(value)
        if kind is None:
            kind = object_type(model)
        return kind(**fields)

    return build_object


def payload_type(name: str, model: type[BaseModel], description: str) -> type:
    """A mutation's payload ``name`` with the fields of ``model``, its REST answer: one payload type per
    mutation, even where two mutations answer the same body (a join and an accepted invitation)."""
    object_type(model)  # the model's own fields and shape first
    made = strawberry.type(type(name, interfaces_of(model), _fields(model)), description=description)
    PAYLOADS[made] = model
    return made


PAYLOADS: dict[type, type[BaseModel]] = {}
"""Each payload type and the model whose fields it has (:func:`payload_type`)."""


def build_payload(made: type, value: Any) -> Any:
    """A payload of :func:`payload_type` filled from its model's ``value`` (an instance or its JSON)."""
    return builder(PAYLOADS[made], made)(value)


@strawberry.type(description="Where a page of a connection stands (Relay's `PageInfo`).")
class PageInfo:
    has_next_page: bool = strawberry.field(
        description="Whether more follow this page: ask for them with `after: endCursor`."
    )
    end_cursor: typing.Optional[str] = strawberry.field(  # noqa: UP045 (a runtime annotation)
        description="Pass it as `after` for the next page; null on the last page. Opaque: never build "
        "or change one."
    )


CONNECTIONS: dict[type, tuple[type[BaseModel], str]] = {}
"""Each connection type and the REST page model (and its list's field) it is made from."""


def connection_type(name: str, page: type[BaseModel], items: str, description: str) -> type:
    """The Relay connection ``<name>Connection`` of a REST page model (``schema.pages``' lists): its
    ``items`` as ``edges { cursor node }`` and ``nodes``, its ``next_cursor`` as ``pageInfo``, and the
    page's other fields as they are (a ladder's ``kind`` and ``board``)."""
    node = graphql_type(get_args(_bare(page.model_fields[items].annotation))[0])
    edge: Any = strawberry.type(
        type(
            f"{name}Edge",
            (),
            {
                "__annotations__": {"cursor": typing.Optional[str], "node": node},  # noqa: UP045
                "__module__": __name__,
                "cursor": strawberry.field(
                    description="Where the list resumes after this node: given on a page's last edge "
                    "(its `pageInfo.endCursor`), null on the others."
                ),
                "node": strawberry.field(description="The item."),
            },
        ),
        description=f"One {node.__strawberry_definition__.name} of a page.",
    )
    namespace = {
        name_: field
        for name_, field in _fields(page).items()
        if name_ not in (items, "next_cursor") and name_ != "__annotations__"
    }
    namespace["__annotations__"] = {
        key: kind
        for key, kind in _fields(page)["__annotations__"].items()
        if key not in (items, "next_cursor")
    }
    namespace["__annotations__"].update(edges=list[edge], nodes=list[node], page_info=PageInfo)
    namespace.update(
        edges=strawberry.field(description="The page's items, in order, each with its cursor."),
        nodes=strawberry.field(description="The page's items, in order (the edges' nodes)."),
        page_info=strawberry.field(description="Whether more follow, and from where."),
    )
    made = strawberry.type(type(f"{name}Connection", (), namespace), description=description)
    CONNECTIONS[made] = (page, items)
    EDGES[made] = edge
    return made


EDGES: dict[type, Any] = {}


def build_connection(made: type, value: Any) -> Any:
    """A connection of :func:`connection_type` from its REST page (an instance or its JSON)."""
    page, items = CONNECTIONS[made]
    annotation = get_args(_bare(page.model_fields[items].annotation))[0]
    nodes = [build(annotation, item) for item in read(value, items) or []]
    after = read(value, "next_cursor")
    edge = EDGES[made]
    edges = [
        edge(cursor=after if index == len(nodes) - 1 else None, node=node) for index, node in enumerate(nodes)
    ]
    others = {
        name: build(info.annotation, read(value, name, info.alias))
        for name, info in page.model_fields.items()
        if name not in (items, "next_cursor")
    }
    page_info = PageInfo(has_next_page=after is not None, end_cursor=after)
    return made(edges=edges, nodes=nodes, page_info=page_info, **others)


def every_type() -> list[type]:
    """Each generated type, for the schema's ``types``: a member reached only through an interface
    (a view of one game, an event) must still be in the schema."""
    for annotation in (views.View, views.LegalAction, actions.Action, views.GameEvent, views.EventEnvelope):
        graphql_type(annotation)
    for model in OPTIONS_OF_GAME.values():
        object_type(model)
    return list(GENERATED.values())


def input_type(
    name: str,
    models: tuple[type[BaseModel], ...],
    description: str | None,
    *,
    all_optional: bool = False,
    overrides: Mapping[str, tuple[Any, str | None]] | None = None,
    ids: Mapping[str, str] | None = None,
    skip: tuple[str, ...] = ("type",),
    more: Mapping[str, tuple[Any, str]] | None = None,
) -> type:
    """One input type holding the fields of ``models`` but ``type``: with one model, its required
    fields are required and its defaults are the input's (unless ``all_optional``); with several
    (GraphQL inputs have no unions) each is optional and the server validates the whole as REST does.
    ``overrides`` types a field otherwise (its GraphQL type, and description), optional: a nested
    model, a number GraphQL's Int cannot hold. ``ids`` come first, required (a mutation's path ids:
    ``game_id``, with its description); ``skip`` the fields left out; ``more`` optional fields of
    GraphQL's own (what REST sends as a header: ``idempotency_key``)."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    for field_name, id_said in (ids or {}).items():
        namespace["__annotations__"][field_name] = strawberry.ID
        namespace[field_name] = strawberry.field(description=id_said)
    for model in models:
        for field_name, info in model.model_fields.items():
            if field_name in namespace["__annotations__"] or field_name in skip:
                continue
            if overrides and field_name in overrides:
                kind, said = overrides[field_name]
                required = info.is_required() and len(models) == 1
                namespace["__annotations__"][field_name] = kind if required else typing.Optional[kind]  # noqa: UP045
                default: Any = dataclasses.MISSING if required else None
                namespace[field_name] = strawberry.field(
                    default=default, description=said or info.description or field_said(model, field_name)
                )
                continue
            exact = len(models) == 1 and not all_optional
            kind, field = _input_field(info, exact, (model, field_name))
            namespace["__annotations__"][field_name] = _as_id(kind) if field_name in ID_FIELDS else kind
            namespace[field_name] = field
    for field_name, (kind, said) in (more or {}).items():  # GraphQL's own (REST's headers): optional
        namespace["__annotations__"][field_name] = typing.Optional[kind]  # noqa: UP045
        namespace[field_name] = strawberry.field(default=None, description=said)
    made = strawberry.input(type(name, (), namespace), description=description)
    INPUTS[made] = models
    return made


INPUTS: dict[type, tuple[type[BaseModel], ...]] = {}
"""Each input type :func:`input_type` made, and the models whose fields it holds."""


def _input_field(info: Any, exact: bool, place: tuple[type[BaseModel], str]) -> tuple[Any, Any]:
    """An input field's type and its ``strawberry.field``: as the model has it when ``exact`` (required,
    or its default: an enum's member for its wire string), else optional."""
    kind = graphql_type(_annotation(info), place)
    said = info.description or field_said(*place)
    if exact and isinstance(info.default, str) and isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind, strawberry.field(default=kind(info.default), description=said)
    if exact and info.is_required():
        return kind, strawberry.field(description=said)
    if exact and info.default_factory is not None:
        return kind, strawberry.field(default_factory=info.default_factory, description=said)
    if exact and info.default is not None:
        return kind, strawberry.field(default=info.default, description=said)
    optional = kind if get_origin(kind) is Union else typing.Optional[kind]  # noqa: UP045
    return optional, strawberry.field(default=None, description=said)


def given(value: Any) -> dict[str, Any]:
    """An input's fields that were given, by their JSON names (``no_trump``, not ``noTrump``), an enum's
    member as its wire string (``ROUGH`` → ``rough``), as REST's body has them."""
    return {
        name: wire(item)
        for name, item in vars(value).items()
        if item is not None and item is not strawberry.UNSET
    }


def wire(value: Any) -> Any:
    """``value`` as JSON says it: an enum's member its wire string, through lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [wire(item) for item in value]
    return value


ACTION_MEMBERS: tuple[type[BaseModel], ...] = tuple(_members(_bare(actions.Action)))
ACTION_TYPES: dict[str, str] = {}
"""The ActionInput attribute of each action ``type`` (``pass`` is a Python keyword: ``pass_``)."""


def one_of_input(name: str, fields: dict[str, tuple[str, Any]], doc: str | None) -> type:
    """A ``@oneOf`` input type ``name``: each attribute of ``fields`` (its GraphQL name, the type it
    holds) optional and unset by default, exactly one given; its description is ``doc`` on one line."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    for attribute, (graphql, held) in fields.items():
        namespace["__annotations__"][attribute] = typing.Optional[held]  # noqa: UP045
        said = f"`{graphql}`: " + ("true" if held is bool else f"its {held.__strawberry_definition__.name}")
        namespace[attribute] = strawberry.field(name=graphql, default=strawberry.UNSET, description=said)
    description = " ".join((doc or "").replace("``", "`").split())
    return strawberry.input(type(name, (), namespace), description=description, one_of=True)


def _action_input() -> type:
    """``ActionInput``, a ``@oneOf`` input: exactly one field, named after the action's type — an
    object with the action's fields (``bid: {points: 80}``, ``play: {card: "AS"}``), or ``true``
    for an action without any (``pass: true``, ``orderUp: true``)."""
    fields: dict[str, tuple[str, Any]] = {}
    for model in ACTION_MEMBERS:
        kind = get_args(_bare(model.model_fields["type"].annotation))[0]
        attribute = f"{kind}_"
        ACTION_TYPES[kind] = attribute
        if set(model.model_fields) == {"type"}:
            held: Any = bool
        else:
            held = input_type(model.__name__.replace("Action", "Input"), (model,), _described(model) or kind)
        fields[attribute] = (camel(kind), held)
    return one_of_input("ActionInput", fields, _action_input.__doc__)


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


class NoAction(ValueError):
    """``{pass: false}``: an ``ActionInput`` whose one member names no action; ``field`` is that member
    (kept apart from the English message, which the service says in the caller's language)."""

    def __init__(self, field: str) -> None:
        super().__init__(f"{field}: false names no action: send {field}: true")
        self.field = field


def action_of(chosen: Any) -> dict[str, Any]:
    """The JSON action (REST's form) an ``ActionInput`` holds; ``pass: false`` names no action."""
    for kind, attribute in ACTION_TYPES.items():
        held = getattr(chosen, attribute)
        if held is None or held is strawberry.UNSET:
            continue
        if held is False:
            raise NoAction(camel(kind))
        return {"type": kind} if held is True else {"type": kind, **given(held)}
    raise ValueError("name one action")  # @oneOf makes this unreachable through the API


ActionInput = _action_input()


def _options_input() -> type:
    """``OptionsInput``, a ``@oneOf`` input: one field, named after the game it is for
    (``fiveHundred``, ``rough``, ``euchre5``), holding that game's rule options only, each optional
    (the game's default otherwise); it must be the game being created (else invalid_options). REST
    says the same with a schema by game (``CreateGameRequest``)."""
    fields: dict[str, tuple[str, Any]] = {}
    for game, model in OPTIONS_OF_GAME.items():
        held = input_type(
            f"{model.__name__}Input", (model,), f"Rule options of {game} (see `rules`).", all_optional=True
        )
        fields[game] = (camel(game), held)
    return one_of_input("OptionsInput", fields, _options_input.__doc__)


def options_of(chosen: Any) -> tuple[str, dict[str, Any]]:
    """The game an ``OptionsInput`` names, and the options it holds in REST's form."""
    for game in OPTIONS_OF_GAME:
        held = getattr(chosen, game)
        if held is not None and held is not strawberry.UNSET:
            return game, given(held)
    raise ValueError("name one game")  # @oneOf makes this unreachable through the API


OptionsInput = _options_input()
