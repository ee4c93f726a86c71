"""A transport that sends what one turn of the event loop writes in one ``send``: an answer's header
and body leave together.

uvicorn writes a response's status line and header when the application starts the response, and its
body with the next message: two ``write`` calls, so two system calls for every answer of this API (a
move's answer is one header and one body), each a loopback round of the kernel's TCP path. Measured
by ``bench/api.py --ref`` against the same code without it (issue 38): 768 against 841 µs of server
CPU per move, p99 42.6 against 51.7 ms.
:class:`CoalescingTransport` holds the bytes written during one turn of the loop and hands them to the
real transport at the end of that turn (``call_soon``), so bytes written back to back go out as one,
while a stream that writes its header and then waits (Server-Sent Events) still sends the header at once:
nothing waits longer than the turn it was written in. Closing, ``write_eof`` and the write buffer's size
see the held bytes first; ``abort`` drops them, as it drops the real transport's buffer.

Only the HTTP/1.1 protocol uses it (``service.runtime.http_server``); a WebSocket takes the real
transport over (each frame written as it comes).
"""

from __future__ import annotations

import asyncio
from typing import Any


class CoalescingTransport(asyncio.Transport):
    """``inner`` with the writes of one loop turn joined (see the module's docstring)."""

    def __init__(self, inner: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.inner, self._loop = inner, loop
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(bytes(data))

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Hand the held bytes to the real transport (at the end of the turn, or before it closes)."""
        if self._held:
            held, self._held = self._held, []
            if not self.inner.is_closing():
                self.inner.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        self.flush()
        self.inner.close()

    def write_eof(self) -> None:
        self.flush()
        self.inner.write_eof()

    def abort(self) -> None:
        self._held = []
        self.inner.abort()

    def can_write_eof(self) -> bool:
        return self.inner.can_write_eof()

    def is_closing(self) -> bool:
        return self.inner.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.inner.get_extra_info(name, default)

    def get_write_buffer_size(self) -> int:
        return self.inner.get_write_buffer_size() + sum(len(data) for data in self._held)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.inner.set_write_buffer_limits(high, low)

    def pause_reading(self) -> None:
        self.inner.pause_reading()

    def resume_reading(self) -> None:
        self.inner.resume_reading()

    def is_reading(self) -> bool:
        return self.inner.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.inner.get_protocol()
