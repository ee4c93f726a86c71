"""Issue 38: an answer's header and body leave in one send (service.runtime.coalescing), and nothing
written waits longer than the loop turn it was written in (a stream's header goes out at once)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from service.runtime.coalescing import CoalescingTransport


class Recording(asyncio.Transport):
    """The real transport's side of the contract: what reached it, and in how many writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: Any) -> None:
        assert not self.closed, "written after close"
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0


async def a_turn() -> None:
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def test_the_writes_of_one_turn_reach_the_transport_as_one_in_order() -> None:
    async def scenario() -> list[bytes]:
        inner = Recording()
        coalescing = CoalescingTransport(inner, asyncio.get_running_loop())
        coalescing.write(b"HTTP/1.1 200 OK\r\n\r\n")
        coalescing.write(b"")
        coalescing.write(b'{"version": 7}')
        assert inner.writes == [] and coalescing.get_write_buffer_size() == 33
        await a_turn()
        coalescing.write(b"data: later\n\n")  # a stream's next event: a turn of its own
        await a_turn()
        return inner.writes

    assert asyncio.run(scenario()) == [b'HTTP/1.1 200 OK\r\n\r\n{"version": 7}', b"data: later\n\n"]


def test_closing_sends_what_is_held_first_and_abort_drops_it() -> None:
    async def scenario() -> tuple[Recording, Recording]:
        loop = asyncio.get_running_loop()
        closed, aborted = Recording(), Recording()
        for inner in (closed, aborted):
            coalescing = CoalescingTransport(inner, loop)
            coalescing.write(b"HTTP/1.1 408 Request Timeout\r\n\r\n")
            coalescing.close() if inner is closed else coalescing.abort()
        await a_turn()  # the turn's flush finds nothing left to send
        return closed, aborted

    closed, aborted = asyncio.run(scenario())
    assert closed.writes == [b"HTTP/1.1 408 Request Timeout\r\n\r\n"] and closed.closed
    assert aborted.writes == [] and aborted.aborted


def test_bytes_held_for_a_connection_the_peer_closed_are_dropped() -> None:
    async def scenario() -> list[bytes]:
        inner = Recording()
        coalescing = CoalescingTransport(inner, asyncio.get_running_loop())
        coalescing.write(b"HTTP/1.1 200 OK\r\n\r\n")
        inner.closed = True  # connection_lost came first
        await a_turn()
        return inner.writes

    assert asyncio.run(scenario()) == []


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """For every send of the live server, how many writes it joined."""
    joined: list[int] = []
    flush = CoalescingTransport.flush

    def counting(self: CoalescingTransport) -> None:
        if self._held:
            joined.append(len(self._held))
        flush(self)

    monkeypatch.setattr(CoalescingTransport, "flush", counting)
    return joined


def test_an_answer_leaves_the_live_server_in_one_send(live_server: str, sends: list[int]) -> None:
    with httpx.Client(base_url=live_server) as http:
        response = http.get("/v1/rules")
        assert response.status_code == 200 and response.json()
    assert sends == [2], sends  # uvicorn's two writes, header then body: one send


def test_a_stream_gets_its_header_before_any_event(live_server: str) -> None:
    """Server-Sent Events: the header is written, then the stream waits for an event; the header
    must not wait with it."""
    with httpx.Client(base_url=live_server) as http:
        created = http.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4})
        gid = created.json()["game"]["game_id"]
    host, port = live_server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        request = f"GET /v1/games/{gid}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
        sock.sendall(request.encode())
        head = sock.recv(4096)  # within the timeout, with no event to send yet
    assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head, head[:300]
    assert head.endswith(b"\r\n\r\n") and b"data:" not in head  # the header alone, no event yet
