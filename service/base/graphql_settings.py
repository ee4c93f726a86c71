"""The GraphQL document limits (service/api/graphql/limits.py), checked before any validation: a part
of :class:`service.base.settings.Settings`, kept in a module of its own so each stays short."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class GraphQLSettings(BaseSettings):
    """Environment variables ``ATOUT_GRAPHQL_*``."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    graphql_max_bytes: int = Field(
        default=32_768, ge=1024, description="Largest GraphQL document (the `query` text) in bytes."
    )
    graphql_max_tokens: int = Field(
        default=2_000,
        ge=100,
        description="Most lexical tokens in a GraphQL document (parsing stops there; GraphiQL's "
        "introspection query has 184).",
    )
    graphql_max_operations: int = Field(
        default=20, ge=1, description="Most operations in one GraphQL document."
    )
    graphql_max_fragments: int = Field(
        default=100, ge=0, description="Most fragment definitions in one GraphQL document."
    )
    graphql_max_spreads: int = Field(default=200, ge=0, description="Most fragment spreads in one document.")
    graphql_max_aliases: int = Field(default=30, ge=0, description="Most aliased fields in one document.")
    graphql_max_selections: int = Field(
        default=500,
        ge=10,
        description="Most selections (fields, spreads, inline fragments) written in one document.",
    )
    graphql_max_depth: int = Field(
        default=15,
        ge=1,
        description="Deepest nesting of selections (root fields at 0); the introspection query needs 14.",
    )
    graphql_max_cost: int = Field(
        default=2000,
        ge=10,
        description="Most fields an operation may resolve: each field costs 1 times the sizes of the lists "
        "around it (games 50 or its limit, seats 5, actions 50, events 50, webhooks, deliveries and "
        "deadLetters 50 or their limit), fragments expanded.",
    )
    graphql_max_value_depth: int = Field(
        default=32, ge=2, description="Deepest nesting of lists and objects in an argument literal."
    )
    graphql_introspection: bool = Field(
        default=True,
        description="false: `__schema` and `__type` queries are refused (introspection_disabled).",
    )
