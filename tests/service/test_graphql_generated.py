"""No GraphQL type is written twice: every object type of the served schema is generated from the pydantic
model REST answers with (``schema.graphql_models.GENERATED``: the views, actions and events, and the
bodies declared in ``schema/graphql_bodies.py``), but the roots and the few types GraphQL has of its own,
named here with their reason; and each generated type has its model's fields, but those its shape
says GraphQL types otherwise (``Extra``)."""

from __future__ import annotations

from gql_select import camel, served
from graphql import GraphQLObjectType

from schema.graphql_bodies import DONE
from schema.graphql_models import CONNECTIONS, EDGES, GENERATED, PAYLOADS, SHAPES, graphql_name

GRAPHQL_ONLY = {
    "Query": "a root",
    "Mutation": "a root",
    "Subscription": "a root",
    "IntOption": "a rule option whose values are whole numbers: GraphQL has no int-or-bool scalar",
    "BoolOption": "a rule option whose values are true or false (see IntOption)",
    "PageInfo": "Relay's page info of every connection (made from a page's `next_cursor`)",
}
OWN_KINDS = {
    "a connection, made from a REST page model (schema.pages' lists)": CONNECTIONS,
    "a connection's edge: a node and its cursor": {edge: None for edge in EDGES.values()},
    "a mutation's payload with the fields of its REST answer's model": PAYLOADS,
    "the payload of a mutation REST answers 204 to: the id it acted on": DONE,
}
"""GraphQL's own types made by rule, each kind with its reason."""


def test_every_object_type_is_generated_from_a_model_but_graphqls_own() -> None:
    schema = served()
    objects = {
        name
        for name, kind in schema.type_map.items()
        if isinstance(kind, GraphQLObjectType) and name[:2] != "__"
    }
    generated = {made.__strawberry_definition__.name for made in GENERATED.values()}  # type: ignore[attr-defined]
    own = {made.__strawberry_definition__.name for kind in OWN_KINDS.values() for made in kind}  # type: ignore[attr-defined]
    assert objects - generated - own == set(GRAPHQL_ONLY)
    assert generated <= objects


def test_each_generated_type_has_its_models_fields() -> None:
    schema = served()
    for model, made in GENERATED.items():
        extras = SHAPES[model].extras if model in SHAPES else {}
        expected = {
            camel(extras[name].name or name) if name in extras else graphql_name(model, name) or camel(name)
            for name in model.model_fields
        }
        kind = schema.get_type(made.__strawberry_definition__.name)  # type: ignore[attr-defined]
        assert isinstance(kind, GraphQLObjectType)
        assert set(kind.fields) == expected, model.__name__
