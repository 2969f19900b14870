"""Adopted clients and their API keys: storage, Bearer authentication, ``keys create``.

Only a SHA-256 of the full key (prefix included) is stored; the plaintext is returned once.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from pony import orm

from hookspecs import Feature, hookimpl
from hookspecs.services import CLIENT_KEYS
from hookspecs.permissions import ADOPTION_ADMIN, declare
from builtin_plugins.clients.keys import (
    ClientError,
    authenticate_api_key,
    client_json,
    close_key_reader,
    define_entities,
    issue_client,
    revoke_client,
    validate_identifier,
)
from builtin_plugins.clients.routes import routes
from svc_host.kit.security import ROLES


class KeyIssuer:
    """The ``CLIENT_KEYS`` service (:class:`hookspecs.services.ClientKeys`): what ``keys create``
    does, for plugins and test kits that must not import this plugin."""

    def __init__(self, host: Any):
        self.host = host

    def issue(self, identifier: str, role: str) -> str:
        with orm.db_session:
            issued = issue_client(self.host, identifier, role)
        return issued.api_key

    def any_client(self) -> bool:
        with orm.db_session:
            return self.host.db.ApiClient.select().exists()


@hookimpl
def startup(host: Any) -> None:
    host.services[CLIENT_KEYS] = KeyIssuer(host)


@hookimpl
def shutdown(host: Any) -> None:
    close_key_reader(host)


@hookimpl
def authenticate_token(host: Any, token: str) -> Any:
    return authenticate_api_key(host, token)


def _keys_create(host: Any, args: Any) -> int:
    if not host.instance_id:
        print("svc-display: the instance id is missing; cannot issue keys", file=sys.stderr)
        return 2
    try:
        with orm.db_session:
            issued = issue_client(host, args.identifier, args.role)
    except ClientError as exc:
        print(f"svc-display: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({
        "api_key": issued.api_key,
        "identifier": issued.identifier,
        "role": issued.role,
        "permissions": host.registries.permissions.for_role(issued.role),
    }))
    return 0


@hookimpl
def register_commands(subparsers: Any) -> None:
    keys_parser = subparsers.add_parser("keys", help="API keys of adopted clients")
    keys_parser.set_defaults(needs_store=True)  # refuse a data dir without a database (svc_host/cli.py)
    keys = keys_parser.add_subparsers(dest="keys_command", required=True)
    create = keys.add_parser("create", help="adopt a client locally and print its key once (JSON)")
    create.add_argument("--identifier", required=True)
    create.add_argument("--role", default="operator", choices=ROLES)
    create.set_defaults(handler=_keys_create)
    listing = keys.add_parser("list", help="adopted clients as JSON (masked keys only)")
    listing.set_defaults(handler=_keys_list)
    revoke = keys.add_parser("revoke", help="revoke the client with this identifier; its key stops working")
    revoke.add_argument("--identifier", required=True)
    revoke.set_defaults(handler=_keys_revoke)


def _keys_list(host: Any, args: Any) -> int:
    with orm.db_session:
        rows = host.db.ApiClient.select().order_by(lambda c: (c.created_at_ms, c.id))
        print(json.dumps({"items": [client_json(row) for row in rows]}))
    return 0


def _keys_revoke(host: Any, args: Any) -> int:
    try:
        identifier = validate_identifier(args.identifier)
    except ClientError as exc:
        print(f"svc-display: {exc}", file=sys.stderr)
        return 2
    with orm.db_session:
        row = host.db.ApiClient.get(identifier=identifier)
        if row is None or not revoke_client(host, row.id):
            print(f"svc-display: no client with identifier {identifier!r}", file=sys.stderr)
            return 1
    print(json.dumps({"revoked": identifier}))
    return 0


FEATURE = Feature(
    permissions=declare(ADOPTION_ADMIN),
    entities=define_entities,
    routes=routes,
)
