"""``/v1/auth/login``, ``/v1/auth/logout``, ``/v1/users/{id}/password`` (spec 4.14)."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from hookspecs import AUTHENTICATED, PUBLIC, Operation, Route
from hookspecs.records import record
from svc_host.kit.rest import (ApiError, SlidingWindowLimiter, client_address, committed_or_conflict, not_found,
                               rate_limited)
from svc_host.kit.security import PASSWORD_MAX, PasswordError, check_password_policy, sha256_hex, verify_password
from builtin_plugins.sessions.store import (
    USERNAME_MAX,
    close_session,
    find_user,
    normalize_username,
    open_session,
    set_password,
)

FAILURE_WINDOW_MS = 5 * 60 * 1000
FAILURES_PER_USERNAME = 5
FAILURES_PER_ADDRESS = 20

USERS_ADMIN = "users.admin"


def _new_password(value: str) -> None:
    try:
        check_password_policy(value)
    except PasswordError as exc:
        raise ValidationError(str(exc)) from None


class AuthLoginBody(Schema):
    username = fields.String(required=True, validate=validate.Length(min=1, max=USERNAME_MAX))
    password = fields.String(required=True, validate=validate.Length(min=1, max=PASSWORD_MAX))


AuthLoginSchema = record("AuthLoginSchema", session_token=fields.String, expires_at_ms=fields.Integer,
                         user_id=fields.String, username=fields.String, role=fields.String,
                         permissions=fields.List(fields.String()))


class UserPasswordBody(Schema):
    old_password = fields.String(validate=validate.Length(min=1, max=PASSWORD_MAX),
                                 metadata={"description": "required when changing your own password without "
                                                          "users.admin"})
    new_password = fields.String(required=True, validate=_new_password,
                                 metadata={"minLength": 8, "maxLength": PASSWORD_MAX})


def bearer_token(req: Any) -> str:
    return (req.get_header("Authorization") or "").partition(" ")[2].strip()


class LoginGuard:
    """Failed logins (and wrong old passwords) per username and per client address."""

    def __init__(self, host: Any):
        self.by_username = SlidingWindowLimiter(FAILURES_PER_USERNAME, FAILURE_WINDOW_MS, host.clock.now_ms)
        self.by_address = SlidingWindowLimiter(FAILURES_PER_ADDRESS, FAILURE_WINDOW_MS, host.clock.now_ms)

    def check(self, username: str, address: str) -> None:
        waits = [w for w in (self.by_username.retry_after(username), self.by_address.retry_after(address)) if w]
        if waits:
            raise rate_limited(max(waits), "too many failed logins; retry later")

    def failed(self, username: str, address: str) -> None:
        self.by_username.hit(username)
        self.by_address.hit(address)

    def succeeded(self, username: str) -> None:
        self.by_username.reset(username)


class LoginResource:
    def __init__(self, host: Any, guard: LoginGuard):
        self.host = host
        self.guard = guard

    def on_post(self, req, resp):  # noqa: ANN001
        body = req.context.body
        address = client_address(req)
        username = body["username"].strip().lower()
        self.guard.check(username, address)
        name = normalize_username(username)
        user = self.host.db.User.get(username=name) if name else None
        if not verify_password(body["password"], user.password_hash if user is not None else None):
            self.guard.failed(username, address)
            raise ApiError(401, "invalid_credentials", "unknown username or wrong password")
        self.guard.succeeded(username)
        with committed_or_conflict():
            token, expires = open_session(self.host, user)
        resp.media = {"session_token": token, "expires_at_ms": expires, "user_id": user.id,
                      "username": user.username, "role": user.role,
                      "permissions": self.host.registries.permissions.for_role(user.role)}


class LogoutResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req, resp):  # noqa: ANN001
        if req.context.principal.kind != "session":
            raise ApiError(409, "not_a_session", "this Bearer value is an API key, not a login session; "
                                                 "revoke keys through /v1/adoption/clients")
        with committed_or_conflict():
            close_session(self.host, bearer_token(req))
        resp.status = 204


class PasswordResource:
    def __init__(self, host: Any, guard: LoginGuard):
        self.host = host
        self.guard = guard

    def on_post(self, req, resp, id):  # noqa: ANN001, A002
        body = req.context.body
        principal = req.context.principal
        is_admin = principal.has(USERS_ADMIN)
        is_self = principal.kind == "session" and principal.subject_id == id
        if not (is_admin or is_self):
            raise ApiError(403, "forbidden", f"only the user or a key with {USERS_ADMIN!r} may change this password")
        user = find_user(self.host.db, id)
        if user is None:
            raise not_found("user")
        if not is_admin:
            if "old_password" not in body:
                raise ApiError(400, "validation_failed", "request validation failed",
                               {"old_password": ["required to change your own password"]})
            address = client_address(req)
            self.guard.check(user.username, address)
            if not verify_password(body["old_password"], user.password_hash):
                self.guard.failed(user.username, address)
                raise ApiError(403, "invalid_credentials", "the old password is wrong")
        keep = sha256_hex(bearer_token(req)) if is_self else None
        with committed_or_conflict("the password was changed by another request at the same time; retry"):
            set_password(self.host, user, body["new_password"], keep_token_hash=keep)
        resp.status = 204


def routes(host: Any) -> list[Route]:
    guard = LoginGuard(host)
    tags = ["sessions"]
    return [
        Route("/v1/auth/login", LoginResource(host, guard), {
            "POST": Operation(PUBLIC, "sign in with a username and password; the session token is a Bearer value",
                              body=AuthLoginBody, response=AuthLoginSchema, tags=tags),
        }),
        Route("/v1/auth/logout", LogoutResource(host), {
            "POST": Operation(AUTHENTICATED, "end the current login session", status=204, tags=tags),
        }),
        Route("/v1/users/{id}/password", PasswordResource(host, guard), {
            "POST": Operation(AUTHENTICATED, f"change a password: the user's own session with old_password, or "
                                             f"{USERS_ADMIN}; ends the user's other sessions",
                              body=UserPasswordBody, status=204, tags=tags),
        }),
    ]
