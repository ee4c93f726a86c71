"""Where the service may send a request of its own (a webhook): to a public address only, unless the
operator allows others (``ATOUT_WEBHOOK_ALLOW_PRIVATE``).

Why: an endpoint URL is chosen by whoever holds the administrator token, but the request leaves from
inside the deployment; a URL naming (or resolving to) ``127.0.0.1``, ``10.0.0.5``, ``169.254.169.254``
(a cloud's metadata service) or the Redis next door would turn the webhook machinery into a way to
reach internal services (server-side request forgery). So a host is resolved, and refused when ANY of
its addresses is not public: loopback, private, link-local, multicast, reserved, unspecified, shared
(100.64/10), documentation; in IPv6 anything outside global unicast 2000::/3 (unique-local,
site-local, link-local, IPv4-mapped ``::ffff:a.b.c.d``...), Teredo and the rest of the IETF's
2001::/23, and the NAT64 (``64:ff9b::/96``, ``64:ff9b:1::/48``) and 6to4 addresses that carry a
non-public IPv4 address. The check is made at registration and again at each delivery (DNS may change
between the two), and the delivery connects to the very address it checked, never to a second
resolution of the name (DNS rebinding). The URL itself is parsed once, strictly
(``schema.webhooks.webhook_target``), at registration and at each delivery: a host the resolver would
read differently from the URL parsers (``2130706433``, ``127.1``) never gets this far."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

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


# IPv4 blocks that are not the public internet (IANA's special-purpose registry): this host, private,
# shared (CGNAT), loopback, link-local, IETF protocol assignments, documentation, the retired 6to4 relay
# anycast, benchmarking, multicast, reserved and broadcast. Written out rather than left to
# ``ipaddress``'s flags, whose tables change between Python releases.
IPV4_NOT_PUBLIC = tuple(
    ipaddress.IPv4Network(block)
    for block in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)
GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
"""The only IPv6 block with public unicast addresses. Everything outside it is refused: unspecified,
loopback, IPv4-mapped and -compatible, discard (100::/64), unique-local (fc00::/7), link-local
(fe80::/10), site-local (fec0::/10, which ``ipaddress`` still calls global), multicast, reserved
(save the NAT64 prefixes, read below)."""
IPV6_NOT_PUBLIC = tuple(
    ipaddress.IPv6Network(block)
    for block in (
        "2001::/23",  # IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID, ...
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation (RFC 9637)
    )
)
SIXTOFOUR = ipaddress.IPv6Network("2002::/16")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""The well-known NAT64 prefix (RFC 6052): a DNS64 resolver of an IPv6-only network answers a name
that has only IPv4 addresses with them under it, so it stands for the IPv4 address in its last 32 bits."""
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
"""The local-use NAT64 prefix (RFC 8215): an operator picks a /48 to /96 inside it, and the length
decides where the IPv4 address sits (RFC 6052, 2.2); every length's reading must be public."""
NAT64_LOCAL_LENGTHS = (48, 56, 64, 96)


def _rfc6052(address: ipaddress.IPv6Address, length: int) -> ipaddress.IPv4Address:
    """The IPv4 address embedded after a NAT64 prefix of ``length`` bits (RFC 6052, 2.2): the 32 bits
    after the prefix, skipping bits 64 to 71 (the ``u`` octet, always zero)."""
    value = int(address)
    if length == 96:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    without_u = ((value >> 64) << 56) | (value & ((1 << 56) - 1))  # 120 bits
    return ipaddress.IPv4Address((without_u >> (120 - length - 32)) & 0xFFFFFFFF)


def _is_public_ipv4(address: ipaddress.IPv4Address) -> bool:
    return address.is_global and not any(address in block for block in IPV4_NOT_PUBLIC)


def _is_public_ipv6(address: ipaddress.IPv6Address) -> bool:
    if address in NAT64:
        return _is_public_ipv4(_rfc6052(address, 96))
    if address in NAT64_LOCAL:
        return all(_is_public_ipv4(_rfc6052(address, n)) for n in NAT64_LOCAL_LENGTHS)
    if address not in GLOBAL_UNICAST or any(address in block for block in IPV6_NOT_PUBLIC):
        return False
    if address in SIXTOFOUR:  # 2002:a.b.c.d::/48 is reached through the IPv4 address a.b.c.d
        return _is_public_ipv4(ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF))
    return not address.is_multicast and not address.is_private and not address.is_reserved


def is_public(address: Address) -> bool:
    """Whether ``address`` is one a request to the outside may go to: an allow-list for IPv6 (global
    unicast, less the blocks of :data:`IPV6_NOT_PUBLIC`; the NAT64 and 6to4 forms by the IPv4 address
    they carry) and a deny-list for IPv4, so that a range ``ipaddress`` forgets (site-local fec0::/10
    is "global" to it) is refused rather than reached."""
    if isinstance(address, ipaddress.IPv4Address):
        return _is_public_ipv4(address)
    return _is_public_ipv6(address)


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
