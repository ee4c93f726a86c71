"""What one client may do to the GraphQL WebSocket (issue 19), checked against a real uvicorn with the
settings ``atout serve`` runs with (``service.runtime.http_server.server_options``) and the ASGI edge
(``service.api.edge``). Each test is one attack the service used to take, and the rule that stops it:

- **the deflate bomb**: with permessage-deflate on, a ~16 KB compressed frame inflated to a 16.8 MB
  ``connection_init`` (``[{}, {}, …]``) that the server inflated and parsed whole (hundreds of MB of
  Python objects) before anything looked at it. Now a message is capped at ``ATOUT_WS_MAX_MESSAGE_BYTES``
  *after* decompression: the socket is closed 1009 (message too big) while inflating, and the process
  does not grow;
- **compression off by default**: the server does not negotiate permessage-deflate unless
  ``ATOUT_WS_COMPRESSION`` says so, and the cap (65,536 bytes) holds for plain messages too;
- **a socket flood from one address**: any number of WebSockets from one client, each holding a
  handler and its tasks. Now one address holds at most ``ATOUT_WS_CONNECTIONS_PER_ADDRESS``; the next
  upgrade is answered 429 ``too_many_connections`` (problem+json), and a closed socket frees its slot;
- **a message flood on one socket**: ``ping`` after ``ping`` as fast as the network carries them,
  each parsed and answered. Now a socket sends at most ``ATOUT_WS_MESSAGES_PER_SECOND`` messages a
  second (a bucket of two seconds' worth); past it the server closes it 1008 "too many messages", and
  a client within the rate is never disturbed;
- **a lone UTF-16 surrogate** (``"\\ud800"`` escaped in the JSON): Python decodes it but cannot
  encode it again, so it used to fail later, in a log line or a Redis write. Now the parser refuses
  it and the socket is closed 4400 (graphql-transport-ws "invalid message"), not an internal error,
  and the server keeps answering.

Every socket is on loopback, closed on the way out, and every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
from svc_helpers import served_app
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.protocol import State

from service.api.app import create_app
from service.base.problems import PROBLEM_JSON
from service.base.settings import Settings

PROTOCOL = "graphql-transport-ws"
WAIT = 10.0  # seconds any one answer may take
MESSAGE_TOO_BIG = 1009
POLICY_VIOLATION = 1008
INVALID_MESSAGE = 4400  # graphql-transport-ws: a message the server cannot read
MB = 2**20


# --- helpers ------------------------------------------------------------------------------------


@contextlib.contextmanager
def served(settings: Settings, **update: Any) -> Iterator[str]:
    """The app with ``settings`` (and ``update``) under uvicorn: yields the GraphQL WebSocket URL."""
    with served_app(create_app(settings.model_copy(update=update))) as base:
        yield base.replace("http://", "ws://", 1) + "/graphql"


def healthz(url: str) -> int:
    """The status of ``GET /healthz`` on the server of the WebSocket ``url``."""
    base = url.removesuffix("/graphql").replace("ws://", "http://", 1)
    return httpx.get(f"{base}/healthz", timeout=WAIT).status_code


def run(scenario: Coroutine[Any, Any, None], seconds: float = 60) -> None:
    """Run ``scenario`` in a fresh event loop; a server that stops answering fails it in ``seconds``."""
    asyncio.run(asyncio.wait_for(scenario, seconds))


@contextlib.asynccontextmanager
async def socket(url: str, **options: Any) -> AsyncIterator[ClientConnection]:
    """A graphql-transport-ws WebSocket to ``url`` (the client offers permessage-deflate), closed on
    the way out."""
    ws = await connect(
        url, subprotocols=[PROTOCOL], compression="deflate", open_timeout=WAIT, close_timeout=WAIT, **options
    )
    try:
        yield ws
    finally:
        await ws.close()


async def initialized(ws: ClientConnection) -> None:
    """``connection_init``, answered ``connection_ack``."""
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    assert await answer(ws) == {"type": "connection_ack"}


async def answer(ws: ClientConnection) -> Any:
    return json.loads(await asyncio.wait_for(ws.recv(), WAIT))


async def until_closed(ws: ClientConnection, most: int = 200) -> tuple[int | None, str, list[Any]]:
    """Read until the server closes the socket: its close code and reason, and the messages before."""
    messages: list[Any] = []
    for _ in range(most):
        try:
            messages.append(await answer(ws))
        except ConnectionClosed as closed:
            if closed.rcvd is None:
                return None, "", messages
            return closed.rcvd.code, closed.rcvd.reason, messages
        except TimeoutError:
            raise AssertionError(f"the socket is still open {WAIT:g} s after {messages}") from None
    raise AssertionError(f"the server sent {most} messages and did not close the socket")


def extensions_of(ws: ClientConnection) -> str:
    """The extensions the server agreed to in its handshake answer."""
    assert ws.response is not None
    return ws.response.headers.get("Sec-WebSocket-Extensions", "")


def rss_bytes() -> int:
    """This process's resident memory (the server runs in a thread of it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def connection_init_of(size: int) -> bytes:
    """A valid ``connection_init`` of exactly ``size`` bytes (a string pads its payload: no nesting,
    no number for the parser's limits to refuse)."""
    empty = json.dumps({"type": "connection_init", "payload": {"pad": ""}}).encode()
    message = json.dumps({"type": "connection_init", "payload": {"pad": "x" * (size - len(empty))}}).encode()
    assert len(message) == size
    return message


# --- 1. the deflate bomb ------------------------------------------------------------------------


def test_a_deflated_16_mb_message_is_closed_1009_while_inflating_and_the_process_does_not_grow(
    settings: Settings,
) -> None:
    elements = 4_200_000
    # json.dumps({"type": "connection_init", "payload": {"x": [{}] * elements}}), without the list
    bomb = b'{"type": "connection_init", "payload": {"x": [' + b"{}, " * (elements - 1) + b"{}]}}"
    assert len(bomb) > 16 * MB

    async def scenario() -> None:
        async with socket(url, max_size=None) as ws:
            assert "permessage-deflate" in extensions_of(ws)
            before = rss_bytes()  # the bomb is built, the server and the socket are up
            await ws.send(bomb, text=True)  # deflated to about 16 KB on the wire
            code, reason, messages = await until_closed(ws)
            growth = rss_bytes() - before
        assert code == MESSAGE_TOO_BIG, (code, reason)
        assert messages == []  # never acknowledged: nothing parsed it
        assert growth < 64 * MB, f"the process grew {growth / MB:.1f} MB"

    with served(settings, ws_compression=True) as url:
        run(scenario())
        assert healthz(url) == 200


# --- 2. the defaults: no compression, 64 KB messages --------------------------------------------


def test_by_default_deflate_is_not_negotiated_and_a_message_over_64_kb_is_closed_1009(
    settings: Settings,
) -> None:
    cap = settings.ws_max_message_bytes
    assert cap == 65_536 and settings.ws_compression is False

    async def scenario() -> None:
        async with socket(url) as ws:
            assert "permessage-deflate" not in extensions_of(ws)
            await ws.send(connection_init_of(70_000), text=True)
            code, reason, messages = await until_closed(ws)
        assert code == MESSAGE_TOO_BIG, (code, reason)
        assert messages == []

        async with socket(url) as ws:
            await ws.send(connection_init_of(cap - 1), text=True)
            assert await answer(ws) == {"type": "connection_ack"}
            assert ws.state is State.OPEN

    with served(settings) as url:
        run(scenario())
        assert healthz(url) == 200


# --- 3. WebSockets per address ------------------------------------------------------------------


def test_past_its_websocket_cap_an_address_is_refused_429_and_a_closed_socket_frees_its_slot(
    settings: Settings,
) -> None:
    async def scenario() -> None:
        async with socket(url) as first, socket(url) as second:
            await initialized(first)
            await initialized(second)
            try:
                third = await connect(url, subprotocols=[PROTOCOL], open_timeout=WAIT)
            except InvalidStatus as refused:
                response = refused.response
            else:
                await third.close()
                raise AssertionError("a third WebSocket from one address was accepted")
            assert response.status_code == 429, response
            assert response.headers.get("Content-Type", "").startswith(PROBLEM_JSON)
            assert json.loads(response.body)["code"] == "too_many_connections"
            await first.close()
            # The slot is given back when the server's handler for the socket has returned, just
            # after the close handshake: a new socket is accepted within moments.
            deadline = time.monotonic() + 5
            while True:
                try:
                    async with socket(url) as again:
                        await initialized(again)
                    break
                except InvalidStatus as still:
                    assert still.response.status_code == 429, still.response
                    assert time.monotonic() < deadline, "the closed socket's slot was not freed"
                    await asyncio.sleep(0.05)
            assert second.state is State.OPEN

    with served(settings, ws_connections_per_address=2) as url:
        run(scenario())


# --- 4. messages per second ---------------------------------------------------------------------


def test_a_socket_sending_past_its_message_rate_is_closed_1008(settings: Settings) -> None:
    pings = 50

    async def scenario() -> None:
        async with socket(url) as ws:
            await initialized(ws)
            with contextlib.suppress(ConnectionClosed):  # the server may close while we still send
                for _ in range(pings):
                    await ws.send('{"type":"ping"}')
            code, reason, messages = await until_closed(ws)
        assert (code, reason) == (POLICY_VIOLATION, "too many messages")
        pongs = [message for message in messages if message == {"type": "pong"}]
        assert len(pongs) < pings and len(pongs) == len(messages)

    with served(settings, ws_messages_per_second=5) as url:
        run(scenario())


def test_a_socket_within_its_message_rate_stays_open(settings: Settings) -> None:
    async def scenario() -> None:
        async with socket(url) as ws:
            await initialized(ws)
            for _ in range(6):  # 3 a second for 2 seconds, under 5 a second
                await ws.send('{"type":"ping"}')
                assert await answer(ws) == {"type": "pong"}
                await asyncio.sleep(1 / 3)
            assert ws.state is State.OPEN

    with served(settings, ws_messages_per_second=5) as url:
        run(scenario(), seconds=5)  # 2 s of pings, and the handshakes


# --- 5. a lone surrogate ------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_message_closes_4400_and_the_server_keeps_answering(settings: Settings) -> None:
    async def scenario() -> None:
        async with socket(url) as ws:
            await ws.send(r'{"type":"connection_init","payload":{"\ud800":1}}')
            code, reason, messages = await until_closed(ws)
        assert code == INVALID_MESSAGE, (code, reason)
        assert messages == []
        async with socket(url) as ws:  # the next client is served as usual
            await initialized(ws)

    with served(settings) as url:
        run(scenario())
        assert healthz(url) == 200
