"""API keys: derivation, hashing, issue/rotate, lookup. Shared by adoption and the CLI."""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import tempfile
import threading
import time
import unicodedata
import uuid
from pathlib import Path
from dataclasses import dataclass
from typing import Any

from pony import orm

from svc_host.auth import Principal, same_digest, sha256_hex
from svc_host.permissions import ROLES

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
    """Create the client row, or rotate the key of an existing identifier. Needs a db_session;
    the caller calls :func:`keys_changed` once the change is committed.

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
    """Delete a client row; its key answers 401 from the next request on. Needs a db_session;
    the caller calls :func:`keys_changed` once the change is committed."""
    if not isinstance(client_id, str) or not _CLIENT_ID.match(client_id):
        return False
    row = host.db.ApiClient.get(id=client_id)
    if row is None:
        return False
    row.delete()
    return True


def authenticate_api_key(host: Any, token: str) -> Principal | None:
    if not token.startswith(KEY_PREFIX):
        return None
    digest = sha256_hex(token)
    cache = _principal_cache(host)
    stamp = cache.stamp()  # before the database read: a change committed after it is seen next time
    principal = cache.get(digest, stamp)
    if principal is not None:
        return principal
    with orm.db_session:
        row = host.db.ApiClient.get(key_hash=digest)
        if row is None or not same_digest(row.key_hash, digest):
            return None
        principal = Principal(identifier=row.identifier, role=row.role, kind="api_key", subject_id=row.id)
    cache.put(digest, principal, stamp)
    return principal


EPOCH_FILE = "api-keys.epoch"


def keys_changed(host: Any) -> None:
    """Tell every process serving this data dir that API keys changed (issued, rotated,
    revoked): call it after the change is committed. Replaces the epoch file, so its inode
    and mtime change; servers drop their cached principals on the next request."""
    path = Path(host.settings.data_dir) / EPOCH_FILE
    fd, tmp = tempfile.mkstemp(prefix=".api-keys-", dir=path.parent)  # mode 0600
    try:
        os.write(fd, secrets.token_hex(8).encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


class PrincipalCache:
    """API-key principals by key digest, valid while the epoch file is unchanged.

    Each request would otherwise open a database session just to find its key (about a
    fifth of a list request's time, docs/performance.md). A revoke or rotation, by this
    process, the CLI or any other process on the data dir, replaces the epoch file
    (:func:`keys_changed`); one ``stat`` per request sees it and empties the cache. Entries
    also expire after ``TTL`` seconds, and only valid keys are cached (at most ``MAX``), so
    unknown tokens cannot grow it. Keys are SHA-256 digests: a dict lookup on them reveals
    nothing usable about a token.
    """

    TTL = 60.0
    MAX = 1024

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, tuple[Principal, float]] = {}
        self.current: tuple | None = None
        self.lock = threading.Lock()

    def stamp(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)

    def get(self, digest: str, stamp: tuple | None) -> Principal | None:
        with self.lock:
            if stamp != self.current:
                self.entries.clear()
                self.current = stamp
                return None
            entry = self.entries.get(digest)
            if entry is None:
                return None
            if entry[1] < time.monotonic():
                del self.entries[digest]
                return None
            return entry[0]

    def put(self, digest: str, principal: Principal, stamp: tuple | None) -> None:
        with self.lock:
            if stamp == self.current and len(self.entries) < self.MAX:  # else the keys changed meanwhile
                self.entries[digest] = (principal, time.monotonic() + self.TTL)


def _principal_cache(host: Any) -> PrincipalCache:
    cache = host.services.get("api_key_principals")
    if cache is None:
        cache = host.services.setdefault("api_key_principals",
                                         PrincipalCache(Path(host.settings.data_dir) / EPOCH_FILE))
    return cache
