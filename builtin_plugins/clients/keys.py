"""API keys: derivation, hashing, issue/rotate, lookup. Shared by adoption and the CLI."""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any

from pony import orm

from hookspecs.permissions import Principal
from svc_host.kit.security import ROLES, same_digest, sha256_hex
from svc_host.kit.storage import close_host_reader, host_reader
from hookspecs.services import API_KEY_PRINCIPALS

KEY_PREFIX = "svc_"
IDENTIFIER_MAX = 128
# Control characters, lone surrogates and line/paragraph separators: an identifier is shown
# on the display and in one console line, and must survive every database encoding.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_CLIENT_ID = re.compile(r"^[0-9a-f]{32}$")


class ClientError(ValueError):
    pass


@dataclass(frozen=True)
class IssuedClient:
    id: str
    identifier: str
    role: str
    api_key: str
    created: bool = True


def define_entities(db: Any) -> None:
    class ApiClient(db.Entity):
        _table_ = "svc_api_client"
        id = orm.PrimaryKey(str, 32)
        identifier = orm.Required(str, IDENTIFIER_MAX, unique=True)
        role = orm.Required(str, 32)
        key_hash = orm.Required(str, 64, unique=True)
        masked_api_key = orm.Required(str, 32)
        created_at_ms = orm.Required(int, size=64)


def derive_api_key(instance_id: str, challenge: str, identifier: str) -> str:
    """``svc_`` + HMAC-SHA256(instance id; challenge, identifier), URL-safe base64."""
    mac = hmac.new(instance_id.encode(), f"{challenge}\n{identifier}".encode(), hashlib.sha256).digest()
    return KEY_PREFIX + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def mask(api_key: str) -> str:
    return f"{api_key[:8]}…{api_key[-4:]}"


def validate_identifier(identifier: Any) -> str:
    if not isinstance(identifier, str) or not identifier.strip():
        raise ClientError("identifier must be a non-empty string")
    if any(unicodedata.category(c) in _FORBIDDEN_CATEGORIES for c in identifier):
        raise ClientError("identifier may not contain control characters, surrogates or line separators")
    identifier = identifier.strip()
    if len(identifier) > IDENTIFIER_MAX:
        raise ClientError(f"identifier must be at most {IDENTIFIER_MAX} characters")
    if any(unicodedata.category(c) in _FORBIDDEN_CATEGORIES for c in identifier):
        raise ClientError("identifier may not contain control characters, surrogates or line separators")
    return identifier


def issue_client(host: Any, identifier: str, role: str, challenge: str | None = None) -> IssuedClient:
    """Create the client row, or rotate the key of an existing identifier. Needs a db_session.

    ``challenge`` is the confirmed adoption challenge; local and admin grants have none and
    use 128 random bits in its place, so every issued key is unpredictable.
    """
    identifier = validate_identifier(identifier)
    if role not in ROLES:
        raise ClientError(f"role must be one of {', '.join(ROLES)}")
    instance_id = host.instance_id
    if not instance_id:
        raise ClientError("the instance id is missing")
    api_key = derive_api_key(instance_id, challenge or secrets.token_urlsafe(16), identifier)
    db = host.db
    row = db.ApiClient.get(identifier=identifier)
    created = row is None
    if row is None:
        row = db.ApiClient(id=uuid.uuid4().hex, identifier=identifier, role=role, key_hash=sha256_hex(api_key),
                           masked_api_key=mask(api_key), created_at_ms=host.clock.now_ms())
    else:
        row.set(role=role, key_hash=sha256_hex(api_key), masked_api_key=mask(api_key),
                created_at_ms=host.clock.now_ms())
    return IssuedClient(row.id, identifier, role, api_key, created)


def client_json(row: Any) -> dict:
    """A client as listed: never the key, never its hash."""
    return {"id": row.id, "identifier": row.identifier, "role": row.role,
            "masked_api_key": row.masked_api_key, "created_at_ms": row.created_at_ms}


def revoke_client(host: Any, client_id: str) -> bool:
    """Delete a client row; its key answers 401 from the next request on (once committed).
    Needs a db_session."""
    if not isinstance(client_id, str) or not _CLIENT_ID.match(client_id):
        return False
    row = host.db.ApiClient.get(id=client_id)
    if row is None:
        return False
    row.delete()
    return True


def authenticate_api_key(host: Any, token: str) -> Principal | None:
    """The principal of an API key, read from the committed key rows on every call.

    No cache can be trusted here: a key revoked or rotated by this process, the CLI, or
    another display process on the same database must be refused on the very next request.
    So each call reads the key's row with one indexed ``SELECT`` on a connection of the
    thread's own, outside any ORM session (:class:`svc_host.storage.Reader`; tens of
    microseconds on SQLite, one round trip on PostgreSQL), and only the :class:`Principal`
    built from an unchanged row is reused.
    """
    if not token.startswith(KEY_PREFIX):
        return None
    digest = sha256_hex(token)
    row = host_reader(host).fetchone(
        'SELECT "key_hash", "identifier", "role", "id" FROM "svc_api_client" WHERE "key_hash" = ?', (digest,))
    if row is None or not same_digest(row[0], digest):
        return None
    principals = _principals(host)
    principal = principals.get(row)
    if principal is None:
        principal = Principal(identifier=row[1], role=row[2], kind="api_key", subject_id=row[3])
        if len(principals) >= MAX_PRINCIPALS:
            principals.clear()
        principals[row] = principal
    return principal


# Principals built from key rows, keyed by the whole row (a rotated or re-roled key is a new
# row): only rows just read from the database are looked up, so nothing stale is served.
MAX_PRINCIPALS = 1024


def _principals(host: Any) -> dict[tuple, Principal]:
    return host.services.setdefault(API_KEY_PRINCIPALS, {})


def close_key_reader(host: Any) -> None:
    close_host_reader(host)
