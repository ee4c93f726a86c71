# mypy: disable-error-code="misc,valid-type,untyped-decorator,no-any-return"
"""GraphQL types generated from the pydantic models of ``schema.views`` and ``schema.actions``: the
views, legal actions, actions, events and options have one definition, and GraphQL, the OpenAPI
document and the tests all read it (a field added there appears in both APIs).

Why interfaces rather than bare unions: a client asks ``view { phase hand … on EuchreView { upcard } }``
and ``gameEvents { id version type … on CardPlayedEvent { seat card } }`` — the fields every member
shares are selectable without a fragment. The interfaces:

- ``GameView``: what every game's view holds (``ViewCommon`` and ``game``); one type per game.
- ``GameAction``: an action as sent, offered (a legal action; the discard as a template) or shown
  in the bidding (``SeatedBid`` … with the seat).
- ``Event``: an event as a move's answer gives it; ``GameEvent``: as a game's stream gives it, with
  its stream ``id`` (resume with ``after``) and the ``version`` it leads to.
- ``GameOptions``: a game's rule options, one type per game.

Literal fields (a suit, a phase, an event ``type``) are plain strings, documented by the rules.

The same generator makes the types of the other bodies both APIs answer with (a game, a player, a
rating, a tournament, a webhook: ``schema.graphql_bodies``): a model's :class:`Shape` says only what
GraphQL says otherwise (its name, the fields that are ids, a field typed otherwise), so no type is
written twice; :func:`build` fills a generated type from the model's instance or its JSON."""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NewType, Union, get_args, get_origin

import strawberry
from pydantic import BaseModel
from strawberry.types.scalar import ScalarDefinition

from schema import actions, views


def _members(annotation: Any) -> list[Any]:
    return [_bare(member) for member in get_args(annotation) if member is not type(None)]


def _bare(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _card(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(actions.CARD_PATTERN, value):
        raise ValueError("a card is two characters, its rank then its suit: AS, TH, 4D, or BJ/RJ")
    return value


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
    )
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
STREAM_EVENTS: frozenset[type[BaseModel]] = frozenset(views.STREAM_EVENTS)


@strawberry.interface(description="An action as a seat sends it (submitAction's answer repeats it).")
class GameAction:
    type: str


@strawberry.interface(
    description="An action the seat may take now (legalActions): as it is sent, but the discard, "
    "offered as a template (`count` cards `from` these)."
)
class LegalAction:
    type: str


@strawberry.interface(description="An event as a move's answer gives it (the same as in the stream).")
class Event:
    type: str


@strawberry.interface(
    description="An event of a game's stream: `id` is its stream id (resume with `after`), `version` "
    "the game's version once it happened."
)
class GameEvent:
    id: str
    version: int
    type: str


@strawberry.interface(description="A game's rule options (see `rules`), one type per game.")
class GameOptions:
    target_score: int


@strawberry.interface(description="A bid as the view shows it: the action and the seat that made it.")
class Bid:
    type: str
    seat: int


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
    if model in STREAM_EVENTS:
        return (GameEvent,)
    if issubclass(model, views.EventBody):
        return (Event,)
    if model in OPTIONS_OF_GAME.values():
        return (GameOptions,)
    return ()


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
ENUMS: dict[Any, Any] = {}
"""The Literal types GraphQL says as an enum (:func:`enum_of`); any other Literal is a string."""


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


def enum_of(literal: Any, name: str, description: str) -> Any:
    """A GraphQL enum of a Literal's values (each named as its value), used wherever the Literal is."""
    values: Any = enum.Enum(name, {value: value for value in get_args(literal)})
    made = strawberry.enum(values, description=description)
    ENUMS[literal] = made
    return made


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


def _loosened() -> dict[type[BaseModel], frozenset[str]]:
    """For each model, the fields made nullable in GraphQL although the model requires them.

    Why: GraphQL merges the fields of one response name across a selection's fragments and refuses a
    query where they differ in nullability (``... on SeatedBid { suit }`` is ``String``,
    ``... on SeatedNameTrump { suit }`` would be ``String!``). So within a family of types that may
    be selected side by side — an interface's members, and the types their same-named fields hold
    (each game's ``contract``, ``last_hand``, ``options``) — a field nullable in one member is
    nullable in all."""
    families: list[list[type[BaseModel]]] = [
        [views.ViewCommon, *_members(_bare(views.View))],
        sorted(BIDS, key=lambda model: model.__name__),
        [*_members(_bare(views.LegalAction)), *_members(_bare(actions.Action))],
        list(views.EVENT_BODIES),
        list(views.STREAM_EVENTS),
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


def graphql_type(annotation: Any) -> Any:
    """The GraphQL type of a pydantic annotation (nullable where the model's is)."""
    if annotation == actions.CARD:
        return Card
    annotation = _bare(annotation)
    if _scalar_union(annotation):
        return typing.Optional[str] if _nullable(annotation) else str  # noqa: UP045
    if _is_union(annotation):
        members = _members(annotation)
        nullable = len(members) < len(get_args(annotation))
        if len(members) == 1:
            inner = graphql_type(next(m for m in get_args(annotation) if m is not type(None)))
        else:
            shared = set.intersection(*(set(interfaces_of(member)) for member in members))
            if not shared:
                raise TypeError(f"no interface shared by {members}")
            if len(shared) > 1:  # actions both sent and offered (a bid in an event): as sent
                shared = {GameAction}
            for member in members:
                object_type(member)
            inner = shared.pop()
        return typing.Optional[inner] if nullable else inner  # noqa: UP045 (a runtime annotation)
    if get_origin(annotation) is list:
        return list[graphql_type(get_args(annotation)[0])]
    if get_origin(annotation) is Literal:
        return ENUMS.get(annotation, type(get_args(annotation)[0]))
    if annotation in (int, str, bool, float):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, enum.StrEnum):
        return str  # an enum of the next issue's public model; a string today
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return object_type(annotation)
    raise TypeError(f"no GraphQL type for {annotation!r}")


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
                description=extra.description or info.description, default=None
            )
            continue
        kind = graphql_type(_annotation(info))
        if name in loose and not _nullable(info.annotation):
            kind = typing.Optional[kind]  # noqa: UP045 (a runtime annotation)
        namespace["__annotations__"][name] = _as_id(kind) if name in ID_FIELDS | shape.ids else kind
        namespace[name] = strawberry.field(
            name=graphql_name(model, name),
            description=info.description,
            default=None,
        )
    return namespace


def _described(model: type[BaseModel]) -> str | None:
    return " ".join((model.__doc__ or "").replace("``", "`").split()) or None


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
_common["__annotations__"]["game"] = str
_common["game"] = strawberry.field(default=None, description="five_hundred, rough or euchre5.")
# Fields each game's view has, of one type (or one interface) in all three: selectable without a
# fragment. (`contract` and `last_hand` differ per game: select them on the game's view.)
_common["__annotations__"].update(bids=list[Bid], trump=typing.Optional[str], options=GameOptions)  # noqa: UP045
_common.update(
    bids=strawberry.field(default=None, description="This hand's bidding so far, in order."),
    trump=strawberry.field(default=None, description="The trump suit (NT: none) once it is known."),
    options=strawberry.field(default=None, description="The game's rule options."),
)
GameView = strawberry.interface(type("GameView", (), _common), description=_described(views.ViewCommon))


def build(annotation: Any, value: Any) -> Any:
    """An instance of ``graphql_type(annotation)`` from a value the model validates (its instance, or
    its JSON): a union's member is the one whose ``type`` (or ``game``) literal the value names."""
    annotation = _bare(annotation)
    if value is None:
        return None
    if _scalar_union(annotation):
        return str(value)
    if _is_union(annotation):
        return build(_member(annotation, value), value)
    if get_origin(annotation) is list:
        return [build(get_args(annotation)[0], item) for item in value]
    if get_origin(annotation) is Literal and annotation in ENUMS:
        return ENUMS[annotation](value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _object(annotation, value)
    return value


def _member(annotation: Any, value: Any) -> Any:
    """The member of a union of models that ``value`` is (or names by its ``type`` or ``game``)."""
    members = _members(annotation)
    if len(members) == 1:
        return members[0]
    for member in members:
        if isinstance(value, member):
            return member
        for key in ("type", "game"):
            info = member.model_fields.get(key)
            if info is not None and read(value, key) in get_args(_bare(info.annotation)):
                return member
    raise ValueError(f"no member of {annotation!r} for {read(value, 'type') or read(value, 'game')!r}")


def _object(model: type[BaseModel], value: Any) -> Any:
    """The generated type of ``model`` filled from ``value``: each field built from the value's, an
    :class:`Extra` made from the whole value."""
    extras = SHAPES.get(model, Shape()).extras
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if name in extras:
            fields[extras[name].name or name] = extras[name].convert(value)
        else:
            fields[name] = build(info.annotation, read(value, name, info.alias))
    return object_type(model)(**fields)


def every_type() -> list[type]:
    """Each generated type, for the schema's ``types``: a member reached only through an interface
    (a view of one game, an event) must still be in the schema."""
    for annotation in (views.View, views.LegalAction, actions.Action, views.EventOfMove, views.StreamEvent):
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
) -> type:
    """One input type holding the fields of ``models`` but ``type``: with one model, its required
    fields are required and its defaults are the input's (unless ``all_optional``); with several
    (GraphQL inputs have no unions) each is optional and the server validates the whole as REST does.
    ``overrides`` types a field otherwise (its GraphQL type, and description), optional: a nested
    model, a number GraphQL's Int cannot hold."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    for model in models:
        for field_name, info in model.model_fields.items():
            if field_name in namespace["__annotations__"] or field_name == "type":
                continue
            if overrides and field_name in overrides:
                kind, said = overrides[field_name]
                namespace["__annotations__"][field_name] = typing.Optional[kind]  # noqa: UP045
                namespace[field_name] = strawberry.field(default=None, description=said or info.description)
                continue
            exact = len(models) == 1 and not all_optional
            namespace["__annotations__"][field_name], namespace[field_name] = _input_field(info, exact)
    return strawberry.input(type(name, (), namespace), description=description)


def _input_field(info: Any, exact: bool) -> tuple[Any, Any]:
    """An input field's type and its ``strawberry.field``: as the model has it when ``exact`` (required,
    or its default), else optional."""
    kind = graphql_type(_annotation(info))
    if exact and info.is_required():
        return kind, strawberry.field(description=info.description)
    if exact and info.default_factory is not None:
        return kind, strawberry.field(default_factory=info.default_factory, description=info.description)
    if exact and info.default is not None:
        return kind, strawberry.field(default=info.default, description=info.description)
    optional = kind if get_origin(kind) is Union else typing.Optional[kind]  # noqa: UP045
    return optional, strawberry.field(default=None, description=info.description)


def given(value: Any) -> dict[str, Any]:
    """An input's fields that were given, by their JSON names (``no_trump``, not ``noTrump``)."""
    return {name: item for name, item in vars(value).items() if item is not None}


ACTION_MEMBERS: tuple[type[BaseModel], ...] = tuple(_members(_bare(actions.Action)))
ACTION_TYPES: dict[str, str] = {}
"""The ActionInput attribute of each action ``type`` (``pass`` is a Python keyword: ``pass_``)."""


def one_of_input(name: str, fields: dict[str, tuple[str, Any]], doc: str | None) -> type:
    """A ``@oneOf`` input type ``name``: each attribute of ``fields`` (its GraphQL name, the type it
    holds) optional and unset by default, exactly one given; its description is ``doc`` on one line."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    for attribute, (graphql, held) in fields.items():
        namespace["__annotations__"][attribute] = typing.Optional[held]  # noqa: UP045
        namespace[attribute] = strawberry.field(name=graphql, default=strawberry.UNSET)
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
