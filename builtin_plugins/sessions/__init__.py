"""Users, passwords and login sessions (spec 4.14, 5.10).

``POST /v1/auth/login`` trades a username and password for a session token usable as a
Bearer value; ``svc-display users create`` adds users (the password comes from stdin or a
prompt, never from the command line).
"""
from __future__ import annotations

import json
import sys
from typing import Any

from pony import orm

from hookspecs import Feature, Permission, hookimpl
from hookspecs.permissions import ADMIN_ONLY
from svc_host.kit.security import ROLES, PasswordError, check_password_policy, read_password
from builtin_plugins.sessions.routes import USERS_ADMIN, routes
from builtin_plugins.sessions.store import (
    UserError,
    authenticate_session,
    create_user,
    define_entities,
    normalize_username,
    set_password,
    user_json,
)


@hookimpl
def authenticate_token(host: Any, token: str) -> Any:
    return authenticate_session(host, token)


def _password_from_stdin() -> str:
    password = read_password()
    if password.endswith("\r"):
        password = password[:-1]
    return check_password_policy(password)


def _users_create(host: Any, args: Any) -> int:
    try:
        password = _password_from_stdin()
        with orm.db_session:
            user = create_user(host, args.username, args.role, password)
            out = user_json(user)
    except (UserError, PasswordError) as exc:
        print(f"svc-display: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


def _users_password(host: Any, args: Any) -> int:
    name = normalize_username(args.username)
    try:
        password = _password_from_stdin()
    except PasswordError as exc:
        print(f"svc-display: {exc}", file=sys.stderr)
        return 2
    with orm.db_session:
        user = host.db.User.get(username=name) if name else None
        if user is None:
            print(f"svc-display: no user {args.username!r}", file=sys.stderr)
            return 1
        ended = set_password(host, user, password)
        out = {**user_json(user), "sessions_ended": ended}
    print(json.dumps(out))
    return 0


def _users_list(host: Any, args: Any) -> int:
    with orm.db_session:
        users = host.db.User.select().order_by(lambda u: u.username)
        print(json.dumps({"items": [user_json(u) for u in users]}))
    return 0


@hookimpl
def register_commands(subparsers: Any) -> None:
    users_parser = subparsers.add_parser("users", help="users who sign in with a password")
    users_parser.set_defaults(needs_store=True)  # refuse a data dir without a database (svc_host/cli.py)
    users = users_parser.add_subparsers(
        dest="users_command", required=True)
    create = users.add_parser("create", help="create a user; the password is read from stdin or a prompt")
    create.add_argument("--username", required=True)
    create.add_argument("--role", default="operator", choices=ROLES)
    create.set_defaults(handler=_users_create)
    password = users.add_parser("password", help="set a user's password (stdin or prompt); ends their sessions")
    password.add_argument("--username", required=True)
    password.set_defaults(handler=_users_password)
    users.add_parser("list", help="users as JSON").set_defaults(handler=_users_list)


FEATURE = Feature(
    permissions=[Permission(USERS_ADMIN, "administer users and their passwords", ADMIN_ONLY)],
    entities=define_entities,
    routes=routes,
)
