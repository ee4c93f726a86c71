"""A typed client of the Atout service, sync (:class:`Client`) and async (:class:`AsyncClient`).

Its bodies and answers are the pydantic models of ``schema/`` (those the OpenAPI document is
generated from). Bearer tokens: the client's default (a bot's API key, a player's token) and
``token=`` per call (a seat token). Every move carries an ``Idempotency-Key``; 429 is retried after
its ``Retry-After``, and so are 503 and a broken connection on a read or a move, within a
:class:`RetryPolicy`. Streams (SSE, or NDJSON) resume by themselves from their last event, with no
gap and no duplicate. Problems raise :class:`ApiError`, carrying the problem's ``code``::

    from atout.client import Client

    with Client("http://localhost:8000", token=api_key) as atout:
        for notice in atout.bot_turns():
            if notice.type == "your_turn":
                ...
"""

from atout.client.aio import AsyncClient, AsyncStream
from atout.client.errors import ApiError, AtoutError, ConnectionLost, StreamResync
from atout.client.retry import NO_RETRY, RetryPolicy
from atout.client.sync import Client, Stream

__all__ = [
    "NO_RETRY",
    "ApiError",
    "AsyncClient",
    "AsyncStream",
    "AtoutError",
    "Client",
    "ConnectionLost",
    "RetryPolicy",
    "Stream",
    "StreamResync",
]
