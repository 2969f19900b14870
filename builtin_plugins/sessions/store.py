"""Users and their login sessions (spec 4.14, 5.10).

A session token is ``svcs_`` plus 256 random bits; only its SHA-256 is stored. It is a
Bearer value like an API key, resolved through the ``authenticate_token`` hook, and lives
:data:`SESSION_LIFETIME_MS` from login (absolute, not sliding).
"""
from __future__ import annotations

import re
import secrets
import uuid
from typing import Any

from pony import orm

from svc_host.kit.rest import commit_quietly
from svc_host.kit.security import ROLES, hash_password, same_digest, sha256_hex
from hookspecs.permissions import Principal

TOKEN_PREFIX = "svcs_"
SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000
MAX_SESSIONS_PER_USER = 20
USERNAME_MAX = 64
USERNAME = re.compile(r"^[a-z0-9][a-z0-9._@-]{0,63}$")
_USER_ID = re.compile(r"^[0-9a-f]{32}$")


class UserError(ValueError):
    pass


def define_entities(db: Any) -> None:
    class User(db.Entity):
        _table_ = "svc_user"
        id = orm.PrimaryKey(str, 32)
        username = orm.Required(str, USERNAME_MAX, unique=True)
        role = orm.Required(str, 32)
        password_hash = orm.Required(str, 256)
        created_at_ms = orm.Required(int, size=64)
        password_changed_at_ms = orm.Required(int, size=64)
        sessions = orm.Set("UserSession", cascade_delete=True)

    class UserSession(db.Entity):
        _table_ = "svc_user_session"
        id = orm.PrimaryKey(str, 32)
        token_hash = orm.Required(str, 64, unique=True)
        user = orm.Required(User)
        created_at_ms = orm.Required(int, size=64)
        expires_at_ms = orm.Required(int, size=64, index=True)


def normalize_username(value: Any) -> str | None:
    """The stored (lower-case) form of a username, or None when it cannot be one."""
    if not isinstance(value, str):
        return None
    name = value.strip().lower()
    return name if USERNAME.match(name) else None


def user_json(user: Any) -> dict:
    return {"id": user.id, "username": user.username, "role": user.role, "created_at_ms": user.created_at_ms}


def find_user(db: Any, user_id: str) -> Any:
    if not isinstance(user_id, str) or not _USER_ID.match(user_id):
        return None
    return db.User.get(id=user_id)


def create_user(host: Any, username: str, role: str, password: str) -> Any:
    """A new user (needs a db_session); the password must already pass the policy."""
    name = normalize_username(username)
    if name is None:
        raise UserError("username must be 1-64 characters: letters, digits, '.', '_', '@' or '-' "
                        "(starting with a letter or digit)")
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}")
    if host.db.User.get(username=name) is not None:
        raise UserError(f"user {name!r} exists")
    now = host.clock.now_ms()
    return host.db.User(id=uuid.uuid4().hex, username=name, role=role, password_hash=hash_password(password),
                        created_at_ms=now, password_changed_at_ms=now)


def set_password(host: Any, user: Any, password: str, keep_token_hash: str | None = None) -> int:
    """Store a new hash and end the user's sessions except ``keep_token_hash``; returns how many ended."""
    user.password_hash = hash_password(password)
    user.password_changed_at_ms = host.clock.now_ms()
    ended = 0
    for session in list(user.sessions):
        if keep_token_hash is None or not same_digest(session.token_hash, keep_token_hash):
            session.delete()
            ended += 1
    return ended


def open_session(host: Any, user: Any) -> tuple[str, int]:
    """A new session token for ``user`` (needs a db_session): ``(token, expires_at_ms)``."""
    now = host.clock.now_ms()
    host.db.UserSession.select(lambda s: s.expires_at_ms <= now).delete(bulk=True)
    live = sorted(user.sessions, key=lambda s: (s.created_at_ms, s.id))
    for session in live[: max(0, len(live) - MAX_SESSIONS_PER_USER + 1)]:
        session.delete()
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires = now + SESSION_LIFETIME_MS
    host.db.UserSession(id=uuid.uuid4().hex, token_hash=sha256_hex(token), user=user, created_at_ms=now,
                        expires_at_ms=expires)
    return token, expires


def close_session(host: Any, token: str) -> bool:
    session = host.db.UserSession.get(token_hash=sha256_hex(token))
    if session is None:
        return False
    session.delete()
    return True


def authenticate_session(host: Any, token: str) -> Principal | None:
    if not token.startswith(TOKEN_PREFIX):
        return None
    digest = sha256_hex(token)
    with orm.db_session:
        session = host.db.UserSession.get(token_hash=digest)
        if session is None or not same_digest(session.token_hash, digest):
            return None
        if session.expires_at_ms <= host.clock.now_ms():
            session.delete()
            commit_quietly()  # another request may have dropped it first
            return None
        user = session.user
        return Principal(identifier=user.username, role=user.role, kind="session", subject_id=user.id)
