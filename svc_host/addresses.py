"""Private-network addresses: what the display's CORS policy (``builtin_plugins/cors``) and the
controller's target checks (``svc_controller/targets.py``) both call private.

Private: loopback, RFC 1918, link-local, and IPv6 unique local addresses (an IPv4-mapped IPv6
address counts as its IPv4 one).
"""
from __future__ import annotations

import ipaddress
import socket

_PRIVATE_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "127.0.0.0/8",      # loopback
    "10.0.0.0/8",       # RFC 1918
    "172.16.0.0/12",    # RFC 1918
    "192.168.0.0/16",   # RFC 1918
    "169.254.0.0/16",   # link-local
    "::1/128",          # loopback
    "fe80::/10",        # link-local
    "fc00::/7",         # unique local (the IPv6 counterpart of RFC 1918)
))


def ip_address(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``value`` as an address (a zone ``%eth0`` ignored, an IPv4-mapped IPv6 one as IPv4), or None."""
    try:
        address = ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_private_address(value: str) -> bool:
    address = ip_address(value)
    return address is not None and any(address in network for network in _PRIVATE_NETWORKS)


def system_resolver(name: str) -> list[str]:
    """Every address ``name`` resolves to (raises OSError when the lookup fails)."""
    return sorted({info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)})
