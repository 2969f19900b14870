"""Tables of the integrations engine: one row per integration, encrypted secrets, linked accounts."""

from __future__ import annotations

from typing import Any

from pony import orm

MS = {"size": 64}


def define_entities(db: Any) -> None:
    class Integration(db.Entity):
        _table_ = "svc_integration"
        id = orm.PrimaryKey(str, 100)
        integration_type = orm.Required(str, 100, index=True)
        enabled = orm.Required(bool, default=False)
        poll_seconds = orm.Required(int, default=900)
        config_json = orm.Optional(orm.Json, nullable=True)
        consecutive_failures = orm.Required(int, default=0)
        next_retry_at = orm.Optional(int, nullable=True, **MS)
        last_run_at_ms = orm.Optional(int, nullable=True, **MS)
        last_success_at_ms = orm.Optional(int, nullable=True, **MS)
        last_error = orm.Optional(str, 2000, nullable=True)
        created_at_ms = orm.Required(int, **MS)

    class IntegrationSecret(db.Entity):
        _table_ = "svc_integration_secret"
        integration_id = orm.Required(str, 100)
        name = orm.Required(str, 100)
        orm.PrimaryKey(integration_id, name)
        ciphertext = orm.Required(orm.LongStr)
        updated_at_ms = orm.Required(int, **MS)

    class IntegrationAccount(db.Entity):
        _table_ = "svc_integration_account"
        id = orm.PrimaryKey(str, 64)
        integration_id = orm.Required(str, 100, index=True)
        account_type = orm.Required(str, 32)
        label = orm.Optional(str, 300, default="")
        # OAuth tokens live in the OS secret store; this holds them Fernet-encrypted only
        # when no keyring backend exists (see docs/integrations.md).
        token_cipher = orm.Optional(orm.LongStr, nullable=True)
        created_at_ms = orm.Required(int, **MS)
