"""A TCP relay on the loopback in front of a real ``atout serve`` that can lose one answer: armed, it
forwards the next move (``POST …/actions``, or another request named) to the server, waits for the
server's answer, and drops it, closing the client's connection, as a network does when it fails
after the server acted. What a client must then do: send the move again with the same
Idempotency-Key, and be answered ``replayed``. Not a mock: the server and the bytes are real, only
the way back is cut."""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field

from service.runtime.embedded_redis import free_port

MOVE = b"/actions"


@dataclass
class CuttingProxy:
    upstream_port: int
    port: int = field(default_factory=free_port)
    cuts: int = 0
    """Answers dropped so far."""
    _armed: int = 0
    _marker: bytes = MOVE
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _listener: socket.socket | None = None
    _closed: bool = False

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def arm(self, answers: int = 1, marker: bytes = MOVE) -> None:
        """Drop the answers of the next ``answers`` requests whose request line holds ``marker``
        (a move's, by default)."""
        with self._lock:
            self._armed += answers
            self._marker = marker

    def start(self) -> CuttingProxy:
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def close(self) -> None:
        self._closed = True
        if self._listener is not None:
            self._listener.close()

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _take_cut(self, chunk: bytes) -> bool:
        with self._lock:
            if self._armed and self._marker in chunk.split(b"\r\n", 1)[0]:
                self._armed -= 1
                return True
        return False

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=30)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)  # a stream stays open as long as the server keeps it
        cut = threading.Event()

        def back() -> None:
            with contextlib.suppress(OSError):
                while data := upstream.recv(65536):
                    if cut.is_set():
                        self.cuts += 1
                        break  # the server answered: that answer is lost
                    client.sendall(data)
            for sock in (client, upstream):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

        threading.Thread(target=back, daemon=True).start()
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                if self._take_cut(data):
                    cut.set()
                upstream.sendall(data)
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_WR)
