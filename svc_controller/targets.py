"""Which displays the controller may reach: the proxy's SSRF rule (CONTRACT "The controller").

A display's host passes when it is a loopback, RFC 1918 or link-local address (or the
IPv6 counterparts), a name ending in ``.local`` (or ``localhost``), a name whose DNS
answers are all such addresses, or a host listed in ``SVC_CONTROLLER_PROXY_ALLOWED_HOSTS``.
Anything else, and any name that does not resolve, is refused (403
``proxy_target_forbidden``). Cloud metadata addresses (:data:`METADATA_ADDRESSES`: link-local
or private, yet the keys of the machine's cloud account) are refused as literals and as any
answer of a name, unless the address itself is listed. The answer checked is the address connected to: the caller
pins the connection to it, so a name cannot resolve privately for the check and publicly
for the request (DNS rebinding).
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from svc_host.addresses import ip_address, is_private_address, system_resolver
from svc_host.http.errors import ApiError

HEADER = "X-Svc-Display-Url"
# Instance metadata services (AWS, GCP, Azure, OpenStack... on 169.254.169.254; AWS's IPv6
# one on fd00:ec2::254): never a display, always a credential store.
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})


def _is_metadata(value: str) -> bool:
    return ip_address(value) in METADATA_ADDRESSES


@dataclass(frozen=True)
class DisplayUrl:
    scheme: str
    host: str  # lower case, IPv6 without brackets
    port: int
    base_path: str  # without a trailing slash

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def parse_display_url(value: str | None, field: str = HEADER) -> DisplayUrl:
    """The display's base URL (``http(s)://host[:port][/prefix]``), or 400 ``validation_failed``."""
    def bad(message: str) -> ApiError:
        return ApiError(400, "validation_failed", f"{field}: {message}", {field: [message]})

    if not value or len(value) > 2000:
        raise bad("the display's base URL is required (https://host:port)")
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        raise bad("not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise bad("must be an http:// or https:// URL with a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise bad("must not carry credentials, a query or a fragment")
    default = 443 if parts.scheme == "https" else 80
    return DisplayUrl(parts.scheme, parts.hostname.lower().rstrip("."), port or default, parts.path.rstrip("/"))


class TargetPolicy:
    def __init__(self, allowed_hosts: Iterable[str] = (),
                 resolver: Callable[[str], Iterable[str]] = system_resolver):
        self.allowed = frozenset(h.lower() for h in allowed_hosts)
        self.resolver = resolver

    def address_for(self, host: str) -> str:
        """The address to connect to for ``host``, or 403 ``proxy_target_forbidden``."""
        address = self._address_for(host)
        if _is_metadata(address) and address not in self.allowed:
            raise forbidden(host, f"a cloud metadata address ({address})")
        return address

    def _address_for(self, host: str) -> str:
        try:
            ipaddress.ip_address(host.split("%", 1)[0])
            literal = True
        except ValueError:
            literal = False
        if literal:
            if is_private_address(host) or host in self.allowed:
                return host
            raise forbidden(host, "a public address")
        try:
            answers = sorted(set(self.resolver(host)))
        except (OSError, UnicodeError, ValueError):
            raise forbidden(host, "a name that does not resolve") from None
        if not answers:
            raise forbidden(host, "a name that does not resolve")
        metadata = [a for a in answers if _is_metadata(a) and a not in self.allowed]
        if metadata:  # one such answer is enough: the connection could go there
            raise forbidden(host, f"a name that resolves to a cloud metadata address ({metadata[0]})")
        if host in self.allowed:
            return answers[0]
        private = [a for a in answers if is_private_address(a)]
        if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
            if private or answers:
                return (private or answers)[0]
        if len(private) == len(answers):
            return private[0]
        raise forbidden(host, "a name that resolves to a public address")


def forbidden(host: str, why: str) -> ApiError:
    return ApiError(403, "proxy_target_forbidden",
                    f"the display host {host!r} is {why}: only loopback, private (RFC 1918), link-local and "
                    ".local hosts (cloud metadata addresses never), or hosts listed in "
                    "SVC_CONTROLLER_PROXY_ALLOWED_HOSTS, can be reached")


def pinned_url(url: DisplayUrl, address: str, path_and_query: str) -> str:
    """``url``'s scheme and port on ``address`` (the checked answer), with ``path_and_query``."""
    host = f"[{address}]" if ":" in address else address
    return f"{url.scheme}://{host}:{url.port}{url.base_path}{path_and_query}"
