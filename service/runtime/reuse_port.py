"""uvicorn's worker processes, each with a listening socket of its own (``SO_REUSEPORT``), so that the
kernel spreads connections over them rather than the first awake taking them all.

With ``uvicorn --workers N`` every worker accepts from one shared socket, and whichever wakes first
accepts every connection waiting: when 32 clients connect at once (a load balancer's keep-alive pool,
a bot farm, ``bench/api.py``), one worker took 27 to 31 of the 32 in most rounds measured (issue 38),
and kept them as long as they stayed open, so one core did the work of two and the answers queued
behind it (the p99 and the spread of every round). Here the supervisor binds the address with
``SO_REUSEPORT`` and never listens on it (it holds the port, and refuses to start when a server
listens there already: :func:`claim`); each worker binds its own socket to the same address and
listens on that, and Linux hands each new connection to one of the workers' sockets by a hash of its
addresses: an even share, whoever is awake.
A worker that dies loses only the connections in its own backlog; the one started in its place
binds again. Where ``SO_REUSEPORT`` does not exist, the workers share the socket as uvicorn does.
"""

from __future__ import annotations

import logging
import socket

import uvicorn
from uvicorn.supervisors import multiprocess

REUSE_PORT = getattr(socket, "SO_REUSEPORT", None)


def bound(host: str, port: int, reuse_port: bool = True) -> socket.socket:
    """A TCP socket bound to ``host:port`` (not listening), with ``SO_REUSEPORT`` unless told not to."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port and REUSE_PORT is not None:
            sock.setsockopt(socket.SOL_SOCKET, REUSE_PORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def claim(host: str, port: int) -> socket.socket:
    """The supervisor's socket for ``host:port``; ``OSError`` (address in use) when a server already
    listens there. ``SO_REUSEPORT`` lets any process of the same user join a port's group: a second
    ``atout serve`` started by mistake on the same port would quietly take a share of the first one's
    connections rather than fail. A plain bind is refused by any socket listening on the port, so one
    is tried first (``SO_REUSEADDR`` only: a previous run's connections in TIME_WAIT do not count)."""
    bound(host, port, reuse_port=False).close()
    return bound(host, port)


def own_sockets(shared: list[socket.socket] | None) -> list[socket.socket] | None:
    """In a worker: a socket of its own for each of the supervisor's, bound to the same address (the
    worker's copies of the supervisor's sockets closed); the shared ones where there is no
    ``SO_REUSEPORT``."""
    if not shared or REUSE_PORT is None:
        return shared
    own = []
    for sock in shared:
        host, port = sock.getsockname()[:2]
        own.append(bound(host, port))
        sock.close()
    return own


class WorkerProcess(multiprocess.Process):
    """uvicorn's worker process, serving on sockets of its own (:func:`own_sockets`)."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover (a child)
        super().target(own_sockets(sockets))


def run_workers(config: uvicorn.Config, claimed: socket.socket) -> None:
    """``config.workers`` worker processes under uvicorn's supervisor (its health checks, restarts
    and signals), each listening on its own ``SO_REUSEPORT`` socket bound to the address of
    ``claimed`` (:func:`claim`). uvicorn's supervisor makes its workers from its module's ``Process``
    (at start, on a restart, on SIGTTIN): that name is pointed at :class:`WorkerProcess` in this
    process, which only supervises (tests/service/test_cli.py checks that every worker listens on a
    socket of its own)."""
    claimed.set_inheritable(True)
    host, port = claimed.getsockname()[:2]
    said = "Uvicorn running on http://%s:%d (Press CTRL+C to quit)"  # as uvicorn.run says it
    logging.getLogger("uvicorn.error").info(said, host, port)
    multiprocess.Process = WorkerProcess  # type: ignore[misc]
    multiprocess.Multiprocess(config, sockets=[claimed]).run()
