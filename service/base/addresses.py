"""Client addresses as every per-address limit counts them.

An IPv4 address is one client. An IPv6 client is its /64: a single home or phone line is handed a
whole /64 (RFC 6177 and common ISP practice) and picks addresses in it at will, so counting per
/128 would give one person 2**64 fresh quotas. An IPv4-mapped IPv6 address (``::ffff:a.b.c.d``, as a
dual-stack socket reports IPv4 peers) is its IPv4 address. Anything that is not an IP address (a
Unix socket's peer, a test client's name) is counted as given.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

IPV6_CLIENT_PREFIX = 64


@lru_cache(maxsize=65_536)
def address_key(host: str) -> str:
    """The key one client's requests are counted under: the IPv4 address, or the IPv6 /64."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)
