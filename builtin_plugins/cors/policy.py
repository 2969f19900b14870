"""Which origins the public adoption routes accept: private networks only (spec 5.12).

An origin's host passes when it is a loopback, RFC 1918, link-local (or IPv6 unique
local) address, ``localhost`` / ``*.localhost``, a name ending in ``.local``, or a name
whose DNS answers are all such addresses. Public answers and failed lookups are denied.
Answers are cached for :data:`DNS_CACHE_MS` on the host clock.
"""
from __future__ import annotations

import ipaddress
import threading
from collections import OrderedDict
from typing import Callable, Iterable
from urllib.parse import urlsplit

from svc_host.kit.network import is_private_address, system_resolver

DNS_CACHE_MS = 5 * 60 * 1000
DNS_CACHE_MAX = 1024

class PrivateOriginPolicy:
    def __init__(self, now_ms: Callable[[], int], resolver: Callable[[str], Iterable[str]] = system_resolver):
        self.now_ms = now_ms
        self.resolver = resolver
        self._cache: OrderedDict[str, tuple[int, bool]] = OrderedDict()
        self._lock = threading.Lock()

    def allows(self, origin: str) -> bool:
        """``origin`` is already normalised (``scheme://host[:port]``)."""
        host = urlsplit(origin).hostname
        if not host:
            return False
        host = host.lower().rstrip(".")
        if is_private_address(host):
            return True
        try:
            ipaddress.ip_address(host)
            return False  # a public address literal
        except ValueError:
            pass
        if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
            return True
        return self._resolves_privately(host)

    def _resolves_privately(self, name: str) -> bool:
        now = self.now_ms()
        with self._lock:
            cached = self._cache.get(name)
            if cached is not None and cached[0] > now:
                return cached[1]
        try:
            answers = list(self.resolver(name))
            verdict = bool(answers) and all(is_private_address(a) for a in answers)
        except (OSError, UnicodeError, ValueError):
            verdict = False
        with self._lock:
            self._cache[name] = (now + DNS_CACHE_MS, verdict)
            self._cache.move_to_end(name)
            while len(self._cache) > DNS_CACHE_MAX:
                self._cache.popitem(last=False)
        return verdict
