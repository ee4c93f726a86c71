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

Literal fields (a suit, a phase, an event ``type``) are plain strings, documented by the rules."""

from __future__ import annotations

import re
import types
import typing
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
        return type(get_args(annotation)[0])
    if annotation in (int, str, bool, float):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return object_type(annotation)
    raise TypeError(f"no GraphQL type for {annotation!r}")


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """A class namespace with the model's fields: their GraphQL types, JSON names and descriptions."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    loose = LOOSENED.get(model, frozenset())
    for name, field in model.model_fields.items():
        kind = graphql_type(_annotation(field))
        if name in loose and not _nullable(field.annotation):
            kind = typing.Optional[kind]  # noqa: UP045 (a runtime annotation)
        namespace["__annotations__"][name] = kind
        namespace[name] = strawberry.field(
            name=graphql_name(model, name),
            description=field.description,
            default=None,
        )
    return namespace


def _described(model: type[BaseModel]) -> str | None:
    return " ".join((model.__doc__ or "").replace("``", "`").split()) or None


def object_type(model: type[BaseModel]) -> type:
    """The Strawberry object type of ``model``, made once; it implements the model's interface."""
    if model in GENERATED:
        return GENERATED[model]
    made = strawberry.type(
        type(model.__name__, interfaces_of(model), _fields(model)), description=_described(model)
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
    """An instance of ``graphql_type(annotation)`` from a JSON value the model validates: a union's
    member is the one whose ``type`` (or ``game``) literal the value names."""
    annotation = _bare(annotation)
    if value is None:
        return None
    if _is_union(annotation):
        members = _members(annotation)
        if len(members) == 1:
            return build(members[0], value)
        for member in members:
            for key in ("type", "game"):
                field = member.model_fields.get(key)
                if field is not None and value.get(key) in get_args(_bare(field.annotation)):
                    return build(member, value)
        raise ValueError(f"no member of {annotation!r} for {value.get('type') or value.get('game')!r}")
    if get_origin(annotation) is list:
        return [build(get_args(annotation)[0], item) for item in value]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return object_type(annotation)(
            **{
                name: build(field.annotation, value.get(field.alias or name))
                for name, field in annotation.model_fields.items()
            }
        )
    return value


def every_type() -> list[type]:
    """Each generated type, for the schema's ``types``: a member reached only through an interface
    (a view of one game, an event) must still be in the schema."""
    for annotation in (views.View, views.LegalAction, actions.Action, views.EventOfMove, views.StreamEvent):
        graphql_type(annotation)
    for model in OPTIONS_OF_GAME.values():
        object_type(model)
    return list(GENERATED.values())


def input_type(
    name: str, models: tuple[type[BaseModel], ...], description: str, *, all_optional: bool = False
) -> type:
    """One input type holding the fields of ``models`` but ``type``: with one model, its required
    fields are required (unless ``all_optional``); with several (GraphQL inputs have no unions) each is
    optional and the server validates the whole as REST does."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__module__": __name__}
    for model in models:
        for field_name, field in model.model_fields.items():
            if field_name in namespace["__annotations__"] or field_name == "type":
                continue
            kind = graphql_type(_annotation(field))
            if len(models) == 1 and field.is_required() and not all_optional:
                namespace["__annotations__"][field_name] = kind
                namespace[field_name] = strawberry.field(description=field.description)
            else:
                optional = kind if get_origin(kind) is Union else typing.Optional[kind]  # noqa: UP045
                namespace["__annotations__"][field_name] = optional
                namespace[field_name] = strawberry.field(default=None, description=field.description)
    return strawberry.input(type(name, (), namespace), description=description)


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
