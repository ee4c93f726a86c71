"""Where the service may send a request of its own (a webhook): to a public address only, unless the
operator allows others (``ATOUT_WEBHOOK_ALLOW_PRIVATE``).

Why: an endpoint URL is chosen by whoever holds the administrator token, but the request leaves from
inside the deployment; a URL naming (or resolving to) ``127.0.0.1``, ``10.0.0.5``, ``169.254.169.254``
(a cloud's metadata service) or the Redis next door would turn the webhook machinery into a way to
reach internal services (server-side request forgery). So a host is resolved, and refused when ANY of
its addresses is not public: loopback, private, link-local, multicast, reserved, unspecified, shared
(100.64/10), documentation, and the IPv6 forms that carry such an IPv4 address (mapped ``::ffff:a.b.c.d``,
NAT64 ``64:ff9b::/96``, 6to4, Teredo). The check is made at registration and again at each delivery
(DNS may change between the two), and the delivery connects to the very address it checked, never to
a second resolution of the name (DNS rebinding)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
RESOLVE_TIMEOUT = 5.0
"""Seconds a resolution at registration may take (a delivery's is bounded by its job's timeout)."""


class DestinationRefused(Exception):
    """The host has no address, or one that is not public (``reason``: ``dns_failed`` or
    ``address_refused``)."""

    def __init__(self, reason: str, host: str, address: str = "") -> None:
        super().__init__(f"{reason}: {host} {address}".strip())
        self.reason = reason
        self.host = host
        self.address = address


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (mapped, NAT64, 6to4, Teredo's server and client)."""
    found: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address in NAT64:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    return found


def is_public(address: Address) -> bool:
    """Whether ``address`` is one a request to the outside may go to."""
    if (
        not address.is_global
        or address.is_multicast
        or address.is_loopback
        or address.is_link_local
        or address.is_private
        or address.is_reserved
        or address.is_unspecified
    ):
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return all(is_public(inner) for inner in _embedded_ipv4(address))
    return True


def checked(host: str, addresses: Iterable[str], allow_private: bool) -> list[str]:
    """``addresses`` (the resolution of ``host``), in order and without repeats, once every one of them
    may be reached; raises :class:`DestinationRefused` otherwise."""
    unique = list(dict.fromkeys(addresses))
    if not unique:
        raise DestinationRefused("dns_failed", host)
    for text in unique:
        try:
            address = ipaddress.ip_address(text.partition("%")[0])  # an IPv6 zone index names no host
        except ValueError:
            raise DestinationRefused("address_refused", host, text) from None
        if not allow_private and not is_public(address):
            raise DestinationRefused("address_refused", host, text)
    return unique


def _addresses(infos: Iterable[tuple[object, object, object, object, tuple[object, ...]]]) -> list[str]:
    return [str(info[4][0]) for info in infos]


def resolve(host: str, port: int, allow_private: bool) -> list[str]:
    """The checked addresses of ``host`` (blocking: for a worker's job, bounded by the job's timeout)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise DestinationRefused("dns_failed", host) from None
    return checked(host, _addresses(infos), allow_private)


async def resolve_async(host: str, port: int, allow_private: bool) -> list[str]:
    """:func:`resolve` for an event loop, given up after :data:`RESOLVE_TIMEOUT` seconds."""
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT)
    except (OSError, UnicodeError, TimeoutError):
        raise DestinationRefused("dns_failed", host) from None
    return checked(host, _addresses(infos), allow_private)
