"""The auth core: who is calling, and may they do this.

Plugins resolve Bearer tokens through the ``authenticate_token`` hook (API keys, session
tokens); the host turns the role into permissions from the one role table and checks the
route's permission. Hashes are compared in constant time by the helpers below.
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. ``kind`` is ``api_key``, ``session`` or ``plugin``.

    The host fills ``permissions`` from the role table, unless ``fixed`` is set: then the
    authenticator chose them (a folder plugin's own key holds three permissions whatever
    its role) and the host keeps those it knows. ``scopes`` maps a permission the caller
    holds only for some resources to those resource names (the plugin's key writes only the
    key-value ``ticker.marquee.<id>``); an operation marked ``scoped`` lets such a caller
    through and its responder checks :meth:`may`. Every other operation sees only
    ``permissions``.
    """

    identifier: str
    role: str
    kind: str = "api_key"
    subject_id: str = ""
    permissions: frozenset[str] = field(default_factory=frozenset)
    fixed: bool = False
    scopes: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)

    def has(self, permission: str) -> bool:
        return permission in self.permissions

    def has_scoped(self, permission: str) -> bool:
        """Holds ``permission`` for at least some resources (fully, or through ``scopes``)."""
        return permission in self.permissions or bool(self.scopes.get(permission))

    def may(self, permission: str, resource: object) -> bool:
        """Holds ``permission`` for ``resource``: fully, or because ``scopes`` names it."""
        return permission in self.permissions or resource in self.scopes.get(permission, ())


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def same_digest(a: str, b: str) -> bool:
    """Constant-time comparison of two hex digests (or any two strings)."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
