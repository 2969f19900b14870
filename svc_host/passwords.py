"""Password hashing with scrypt (``cryptography``), self-describing and constant-time to verify.

Stored form: ``scrypt$<log2 n>$<r>$<p>$<salt b64>$<hash b64>``, so parameters can be raised
later without invalidating existing hashes. The host's, because the display's users
(``sessions``) and the controller's operators (``svc_controller``) share one policy and hash.
"""
from __future__ import annotations

import base64
import getpass
import hmac
import secrets
import sys
from typing import Any

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

LOG2_N = 15  # n = 32768, r = 8: 32 MiB and roughly 0.1 s per hash
R = 8
P = 1
LENGTH = 32
PASSWORD_MIN = 8
PASSWORD_MAX = 1024


class PasswordError(ValueError):
    pass


def check_password_policy(password: object) -> str:
    if not isinstance(password, str):
        raise PasswordError("password must be a string")
    if len(password) < PASSWORD_MIN:
        raise PasswordError(f"password must be at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise PasswordError(f"password must be at most {PASSWORD_MAX} characters")
    try:
        password.encode("utf-8")
    except UnicodeEncodeError:
        raise PasswordError("password must be valid Unicode text") from None
    return password


def _derive(password: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    return Scrypt(salt=salt, length=LENGTH, n=2 ** log2_n, r=r, p=p).derive(password.encode("utf-8", "surrogatepass"))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = _derive(password, salt, LOG2_N, R, P)
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    return f"scrypt${LOG2_N}${R}${P}${b64(salt)}${b64(digest)}"


_DUMMY = None


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches ``stored``; with no stored hash, spends the same time and fails."""
    global _DUMMY
    if stored is None:
        if _DUMMY is None:
            _DUMMY = hash_password(secrets.token_urlsafe(16))
        stored, expect = _DUMMY, False
    else:
        expect = True
    try:
        scheme, log2_n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        computed = _derive(password, base64.b64decode(salt), int(log2_n), int(r), int(p))
        return hmac.compare_digest(computed, base64.b64decode(digest)) and expect
    except (ValueError, TypeError):
        return False


def read_password(stream: Any = None) -> str:
    """The new password: two prompts on a terminal, else the first line of stdin."""
    stream = stream or sys.stdin
    if stream.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("repeat password: ") != first:
            raise PasswordError("the two passwords differ")
        return first
    line = stream.readline()
    return line[:-1] if line.endswith("\n") else line
