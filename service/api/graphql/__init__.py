"""GraphQL at /graphql (Strawberry): the REST capabilities with the same semantics and error codes.

Expected failures are GraphQL errors whose ``extensions.code`` is the REST problem ``code``; every
other error gets a code too (``invalid_query`` for a document or variables graphql-core refuses,
``internal_error`` for a fault, its message hidden). Documents are bounded (size, tokens, fragments,
aliases, selections, depth, cost) by ``service.api.graphql.limits`` before graphql-core validates them.
Requests that are not GraphQL-shaped (bad JSON, a batch, a mutation over GET, another content type)
are answered with ``application/problem+json``, as REST answers them.

The modules, by concern: ``context`` (what resolvers read off the request), ``queries``, ``mutations``
and ``subscriptions`` (the three roots), ``players`` (the players' queries and mutations), ``errors`` (a
code for every error), ``limits`` (the bounds of a document), ``schema`` (the schema and its SDL) and
``transport`` (the ASGI app over HTTP and WebSocket). ``python -m service.api.graphql`` prints the SDL
(``schema/schema.graphql``).
"""

from service.api.graphql.schema import build_schema, sdl
from service.api.graphql.transport import graphql_app

__all__ = ["build_schema", "graphql_app", "sdl"]
