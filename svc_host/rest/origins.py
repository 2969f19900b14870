"""Browser origins: ``scheme://host[:port]`` normalised, from ``Origin`` or ``Referer``."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

ORIGIN_MAX = 300
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_origin(value: Any) -> str | None:
    """``scheme://host[:port]`` in lower case without a default port, or None when not an http(s) origin.

    Accepts a bare origin or a full URL (a ``Referer``): path, query and fragment are
    dropped. ``null``, other schemes, user info and malformed ports give None.
    """
    if not isinstance(value, str) or not value or len(value) > 2048:
        return None
    try:
        parts = urlsplit(value.strip())
        scheme = parts.scheme.lower()
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc or any(c.isspace() for c in value.strip()):
        return None
    host = host.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    origin = f"{scheme}://{host}" if port in (None, _DEFAULT_PORTS[scheme]) else f"{scheme}://{host}:{port}"
    return origin if len(origin) <= ORIGIN_MAX else None


def request_origin(req: Any) -> str | None:
    """The normalised ``Origin`` of a request, or of its ``Referer`` when ``Origin`` is absent."""
    origin = req.get_header("Origin")
    if origin:
        return normalize_origin(origin)
    return normalize_origin(req.get_header("Referer"))
