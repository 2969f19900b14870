"""The auth core: who is calling, and may they do this.

Plugins resolve Bearer tokens through the ``authenticate_token`` hook (API keys, session
tokens); the host turns the role into permissions from the one role table and checks the
route's permission (the caller it resolves is :class:`hookspecs.permissions.Principal`, a value
of the contract). Hashes are compared in constant time by the helpers below.
"""
from __future__ import annotations

import hashlib
import hmac


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def same_digest(a: str, b: str) -> bool:
    """Constant-time comparison of two hex digests (or any two strings)."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
