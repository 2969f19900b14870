"""Who is calling the controller (CONTRACT "The controller", spec 5.14).

Auth off (the default): every caller is the one global principal, scope ``""``.
Auth on: a session cookie signed with ``SVC_CONTROLLER_SESSION_SECRET`` (itsdangerous)
carries a random token; only its SHA-256 is stored, with an expiry, so logout ends it.
A state-changing request must carry ``X-Requested-With: svc-controller`` (403
``csrf_required``); login attempts are rate-limited per client address.

Passwords are hashed with the display's scrypt helper and compared in constant time.
"""
from __future__ import annotations

import secrets
from http.cookies import CookieError, SimpleCookie
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer
from pony import orm

from svc_host.rest.ratelimit import SlidingWindowLimiter
from svc_host.passwords import check_password_policy, hash_password, verify_password
from hookspecs.permissions import Principal
from svc_host.auth import sha256_hex

COOKIE_NAME = "svc_controller_session"
SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000
CSRF_HEADER = "X-Requested-With"
CSRF_VALUE = "svc-controller"
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
GLOBAL = Principal(identifier="global", role="controller", kind="anonymous", subject_id="")
USERNAME_MAX = 64


class UserError(ValueError):
    pass


def scope_of(principal: Principal) -> str:
    """The backup-target scope of a principal: ``""`` (global) or ``user:<id>``."""
    return f"user:{principal.subject_id}" if principal.kind == "session" else ""


def normalize_username(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip().lower()
    if not value or len(value) > USERNAME_MAX or any(c.isspace() or ord(c) < 32 for c in value):
        return None
    return value


class Gate:
    """Resolves principals from cookies and applies the CSRF rule (WSGI routes and the ASGI proxy)."""

    def __init__(self, settings: Any, db: orm.Database, clock: Any):
        self.settings = settings
        self.db = db
        self.clock = clock
        self.enabled = settings.auth_enabled
        self.signer = URLSafeSerializer(settings.session_secret or "unused", salt="svc-controller-session")
        self.login_limiter = SlidingWindowLimiter(settings.login_rate_per_min, 60_000, clock.now_ms)

    # -- sessions ---------------------------------------------------------------------
    def principal_for_cookie(self, cookie_value: str | None) -> Principal | None:
        if not self.enabled:
            return GLOBAL
        if not cookie_value or len(cookie_value) > 512:
            return None
        try:
            token = self.signer.loads(cookie_value)
        except BadSignature:
            return None
        if not isinstance(token, str):
            return None
        with orm.db_session:
            session = self.db.ControllerSession.get(token_hash=sha256_hex(token))
            if session is None or session.expires_at_ms <= self.clock.now_ms():
                return None
            user = session.user
            return Principal(identifier=user.username, role="user", kind="session", subject_id=str(user.id))

    def principal_for_headers(self, headers: list[tuple[str, str]]) -> Principal | None:
        """From raw ASGI headers (lower-case names)."""
        if not self.enabled:
            return GLOBAL
        for name, value in headers:
            if name == "cookie":
                try:
                    jar = SimpleCookie(value)
                except CookieError:
                    continue
                if COOKIE_NAME in jar:
                    return self.principal_for_cookie(jar[COOKIE_NAME].value)
        return None

    def csrf_ok(self, method: str, header_value: str | None) -> bool:
        if not self.enabled or method.upper() not in STATE_CHANGING:
            return True
        return header_value is not None and secrets.compare_digest(header_value.strip(), CSRF_VALUE)

    def login(self, username: Any, password: Any) -> str | None:
        """The signed cookie value for a valid login, else None (same time spent either way)."""
        name = normalize_username(username)
        password = password if isinstance(password, str) else ""
        with orm.db_session:
            user = self.db.ControllerUser.get(username=name) if name else None
            stored = user.password_hash if user is not None else None
            if not verify_password(password, stored) or user is None:
                return None
            token = secrets.token_urlsafe(32)
            now = self.clock.now_ms()
            for old in self.db.ControllerSession.select(lambda s: s.expires_at_ms <= now):
                old.delete()
            self.db.ControllerSession(token_hash=sha256_hex(token), user=user, created_at_ms=now,
                                      expires_at_ms=now + SESSION_LIFETIME_MS)
        return self.signer.dumps(token)

    def logout(self, cookie_value: str | None) -> None:
        if not cookie_value:
            return
        try:
            token = self.signer.loads(cookie_value)
        except BadSignature:
            return
        if isinstance(token, str):
            with orm.db_session:
                session = self.db.ControllerSession.get(token_hash=sha256_hex(token))
                if session is not None:
                    session.delete()


def create_user(db: orm.Database, username: str, password: str, now_ms: int) -> dict:
    name = normalize_username(username)
    if name is None:
        raise UserError(f"username must be 1-{USERNAME_MAX} characters without spaces")
    check_password_policy(password)
    with orm.db_session:
        if db.ControllerUser.get(username=name) is not None:
            raise UserError(f"user {name!r} exists")
        user = db.ControllerUser(username=name, password_hash=hash_password(password), created_at_ms=now_ms)
        orm.flush()
        return {"id": user.id, "username": user.username}
