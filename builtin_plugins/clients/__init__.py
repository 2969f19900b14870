"""Adopted clients and their API keys: storage, Bearer authentication, ``keys create``.

Only a SHA-256 of the full key (prefix included) is stored; the plaintext is returned once.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from pony import orm

from hookspecs import hookimpl
from builtin_plugins.clients.keys import (
    ClientError,
    authenticate_api_key,
    define_entities,
    issue_client,
)
from svc_host.permissions import ROLES


@hookimpl
def register_entities(db: Any) -> None:
    define_entities(db)


@hookimpl
def authenticate_token(host: Any, token: str) -> Any:
    return authenticate_api_key(host, token)


def _keys_create(host: Any, args: Any) -> int:
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
    keys = subparsers.add_parser("keys", help="API keys of adopted clients").add_subparsers(
        dest="keys_command", required=True)
    create = keys.add_parser("create", help="adopt a client locally and print its key once (JSON)")
    create.add_argument("--identifier", required=True)
    create.add_argument("--role", default="operator", choices=ROLES)
    create.set_defaults(handler=_keys_create)
