"""``POST /v1/adoption/request`` and ``POST /v1/adoption/confirm`` (spec 4.1, 5.3-5.7, 5.11)."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import PUBLIC, Operation, Route
from builtin_plugins.adoption.challenges import MAX_PENDING, ConfirmFailed
from builtin_plugins.clients.keys import issue_client
from builtin_plugins.clients.routes import grant_json, require_instance_id
from builtin_plugins.clients.schemas import AdoptionGrantSchema, Identifier, role_field
from svc_host.kit.rest import (ApiError, SlidingWindowLimiter, client_address, commit_quietly, committed_or_conflict,
                               rate_limited, request_origin)
from hookspecs.permissions import ADOPTION_ADMIN
from svc_host.kit.security import ROLES
from hookspecs.services import ADOPTION, CORS, SETTINGS

RATE_WINDOW_MS = 60_000
PUBLISHES = ("adoption",)  # the change event of a new or confirmed challenge (the display's card)
RACE = "another adoption of this identifier happened at the same time; retry"
CHALLENGE_INPUT_MAX = 32


class AdoptionRequestBody(Schema):
    identifier = Identifier(required=True)
    role = role_field(load_default="operator")


class AdoptionConfirmBody(Schema):
    identifier = Identifier(required=True)
    challenge_code = fields.String(required=True, validate=validate.Length(min=1, max=CHALLENGE_INPUT_MAX),
                                   metadata={"description": "8 Crockford base32 characters; hyphen optional"})


class AdoptionRequestAnswerSchema(Schema):
    """Without a key: ``{expires_at_ms, identifier, role}``; with an admin key: ``{api_key, identifier, role,
    permissions}``."""

    identifier = fields.String(required=True)
    role = fields.String(required=True)
    expires_at_ms = fields.Integer(metadata={"description": "challenge expiry (public request only)"})
    api_key = fields.String(metadata={"description": "plaintext key, returned once (admin grant only)"})
    permissions = fields.List(fields.String(), metadata={"description": "admin grant only"})


def allowed_roles(host: Any) -> list[str]:
    settings = host.services.get(SETTINGS)
    value = settings.get("adoption_allowed_roles") if settings is not None else list(ROLES)
    if not isinstance(value, list):  # a corrupt setting closes public adoption rather than opening it
        return []
    return [role for role in value if role in ROLES]


REQUESTS_OFF = "adoption_requests_off"
"""The 403 code of a request while new requests are off (``adoption_allow_new_requests`` false, that
is ``adoption_allowed_roles`` empty): the switch is named, not the role."""


def check_role_allowed(host: Any, role: str) -> None:
    allowed = allowed_roles(host)
    if not allowed:
        raise ApiError(403, REQUESTS_OFF,
                       "new adoption requests are off on this display (adoption_allow_new_requests is false); "
                       "an admin switches them on in the display settings",
                       {"setting": "adoption_allow_new_requests"})
    if role not in allowed:
        raise ApiError(403, "adoption_role_not_allowed",
                       f"role {role!r} is not in adoption_allowed_roles", {"role": role})


def remember_origin(host: Any, req: Any) -> None:
    cors = host.services.get(CORS)
    if cors is not None:
        cors.remember(request_origin(req), "adoption")


class AdoptionRoutes:
    def __init__(self, host: Any):
        self.host = host
        # Requests and confirms have separate budgets, each per client address per minute.
        rate = host.settings.plugin_values("adoption").adoption_rate_per_min
        self.request_limiter = SlidingWindowLimiter(rate, RATE_WINDOW_MS, host.clock.now_ms)
        self.confirm_limiter = SlidingWindowLimiter(rate, RATE_WINDOW_MS, host.clock.now_ms)

    @property
    def service(self) -> Any:
        return self.host.services[ADOPTION]

    def limit(self, limiter: SlidingWindowLimiter, req: Any) -> None:
        retry = limiter.check_and_hit(client_address(req))
        if retry is not None:
            raise rate_limited(retry, "too many adoption calls from this address; retry later")


class RequestResource:
    def __init__(self, routes: AdoptionRoutes):
        self.routes = routes
        self.host = routes.host

    def on_post(self, req, resp):  # noqa: ANN001
        body = req.context.body
        principal = req.context.principal
        if principal is None and getattr(req.context, "bearer_presented", False):
            raise ApiError(401, "unauthorized", "the Bearer key is not valid; omit it to request a challenge")
        if principal is not None:
            if not principal.has(ADOPTION_ADMIN):
                raise ApiError(403, "forbidden", "only an admin key may adopt a client directly")
            self._grant(req, resp, body)
            return
        self.routes.limit(self.routes.request_limiter, req)
        require_instance_id(self.host)
        check_role_allowed(self.host, body["role"])
        service = self.routes.service
        with committed_or_conflict(RACE):
            service.sweep()
        with committed_or_conflict(RACE):
            pending = self.host.db.AdoptionChallenge.get(identifier=body["identifier"])
            if pending is None and service.pending_count() >= MAX_PENDING:
                retry = max(1, -(-(service.oldest_expiry_ms() - self.host.clock.now_ms()) // 1000))
                raise rate_limited(retry, f"{MAX_PENDING} adoption challenges are already pending; retry later")
            answer = service.create(body["identifier"], body["role"])
        resp.media = answer

    def _grant(self, req, resp, body) -> None:  # noqa: ANN001
        require_instance_id(self.host)
        check_role_allowed(self.host, body["role"])
        with committed_or_conflict(RACE):
            issued = issue_client(self.host, body["identifier"], body["role"])
            pending = self.host.db.AdoptionChallenge.get(identifier=issued.identifier)
            if pending is not None:  # the admin adopted it directly: the challenge is moot
                self.routes.service.finish(pending)
            remember_origin(self.host, req)
        resp.media = grant_json(self.host, issued)


class ConfirmResource:
    def __init__(self, routes: AdoptionRoutes):
        self.routes = routes
        self.host = routes.host

    def on_post(self, req, resp):  # noqa: ANN001
        body = req.context.body
        self.routes.limit(self.routes.confirm_limiter, req)
        require_instance_id(self.host)
        service = self.routes.service
        try:
            row = service.confirm(body["identifier"], body["challenge_code"])
        except ConfirmFailed:
            commit_quietly()  # keep the wrong-attempt count and any expiry, then refuse
            raise ApiError(401, "invalid_challenge", "the challenge code is wrong or expired") from None
        role, challenge = row.role, row.challenge
        if role not in allowed_roles(self.host):
            service.finish(row)
            commit_quietly()
            check_role_allowed(self.host, role)
        with committed_or_conflict(RACE):
            if not service.consume(row):  # a concurrent confirm used this code first
                raise ApiError(401, "invalid_challenge", "the challenge code is wrong or expired")
            issued = issue_client(self.host, body["identifier"], role, challenge=challenge)
            remember_origin(self.host, req)
        resp.media = grant_json(self.host, issued)


def routes(host: Any) -> list[Route]:
    shared = AdoptionRoutes(host)
    tags = ["adoption"]
    return [
        Route("/v1/adoption/request", RequestResource(shared), {
            "POST": Operation(PUBLIC, "request adoption: without a key a challenge is shown on the display "
                                      "(response {expires_at_ms, identifier, role}); with an admin key the client "
                                      "is adopted at once (response {api_key, identifier, role, permissions})",
                              body=AdoptionRequestBody, response=AdoptionRequestAnswerSchema, tags=tags,
                              publishes=PUBLISHES),
        }),
        Route("/v1/adoption/confirm", ConfirmResource(shared), {
            "POST": Operation(PUBLIC, "confirm adoption with the challenge read on the display",
                              body=AdoptionConfirmBody, response=AdoptionGrantSchema, tags=tags,
                              publishes=PUBLISHES),
        }),
    ]
