"""``/v1/adoption/clients`` (admin) and ``/v1/adoption/session`` (any valid key), spec 4.1."""
from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs import AUTHENTICATED, Operation, Route
from builtin_plugins.clients.keys import ClientError, client_json, issue_client, revoke_client
from builtin_plugins.clients.schemas import (
    AdoptionClientCreateBody,
    AdoptionClientListSchema,
    AdoptionClientSchema,
    AdoptionCreatedClientSchema,
    AdoptionSessionSchema,
)
from svc_host.kit.rest import ApiError, committed_or_conflict, not_found
from hookspecs.permissions import ADOPTION_ADMIN


def grant_json(host: Any, issued: Any) -> dict:
    return {"api_key": issued.api_key, "identifier": issued.identifier, "role": issued.role,
            "permissions": host.registries.permissions.for_role(issued.role)}


def require_instance_id(host: Any) -> None:
    if not host.instance_id:
        raise ApiError(503, "adoption_unavailable", "the display instance id is missing; adoption is unavailable")


class ClientsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req, resp):  # noqa: ANN001
        rows = self.host.db.ApiClient.select().order_by(lambda c: (c.created_at_ms, c.id))
        resp.media = {"items": [client_json(row) for row in rows]}

    def on_post(self, req, resp):  # noqa: ANN001
        body = req.context.body
        require_instance_id(self.host)
        with committed_or_conflict("another request adopted this identifier at the same time; retry"):
            try:
                issued = issue_client(self.host, body["identifier"], body["role"])
            except ClientError as exc:  # pragma: no cover - the schema already checked both
                raise ApiError(400, "validation_failed", str(exc)) from None
        row = self.host.db.ApiClient[issued.id]
        resp.status = 201  # a new key either way: a new client, or a rotated one
        resp.media = {**grant_json(self.host, issued), **client_json(row)}


class ClientResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req, resp, id):  # noqa: ANN001, A002
        row = self.host.db.ApiClient.get(id=id) if len(id) == 32 else None
        if row is None:
            raise not_found("client")
        resp.media = client_json(row)

    def on_delete(self, req, resp, id):  # noqa: ANN001, A002
        if not revoke_client(self.host, id):
            raise not_found("client")
        orm.commit()
        resp.status = 204


class SessionResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req, resp):  # noqa: ANN001
        principal = req.context.principal
        resp.media = {"identifier": principal.identifier, "role": principal.role,
                      "permissions": sorted(principal.permissions)}


def routes(host: Any) -> list[Route]:
    tags = ["adoption"]
    return [
        Route("/v1/adoption/clients", ClientsResource(host), {
            "GET": Operation(ADOPTION_ADMIN, "adopted clients (masked keys)", response=AdoptionClientListSchema, tags=tags),
            "POST": Operation(ADOPTION_ADMIN, "adopt a client directly; the plaintext key is returned once "
                                              "(an existing identifier's key is rotated)",
                              body=AdoptionClientCreateBody, response=AdoptionCreatedClientSchema, status=201, tags=tags),
        }),
        Route("/v1/adoption/clients/{id}", ClientResource(host), {
            "GET": Operation(ADOPTION_ADMIN, "one adopted client", response=AdoptionClientSchema, tags=tags),
            "DELETE": Operation(ADOPTION_ADMIN, "revoke a client; its key answers 401 at once", status=204,
                                tags=tags),
        }),
        Route("/v1/adoption/session", SessionResource(host), {
            "GET": Operation(AUTHENTICATED, "who the caller is: identifier, role, permissions",
                             response=AdoptionSessionSchema, tags=tags),
        }),
    ]
