"""Throwaway collector types for engine tests, registered as a test plugin."""

from __future__ import annotations

import threading
from typing import Any

from pony import orm

from hookspecs import IntegrationType, hookimpl

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 100}, "path": {"type": "string"}},
    "additionalProperties": False,
}


class Probes:
    """``general_probe`` writes a quote; ``general_broken`` raises; ``general_stuck`` hangs."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.release = threading.Event()

    def collect_probe(self, ctx: Any) -> int:
        self.calls.append({"secrets": dict(ctx.secrets), "config": dict(ctx.config), "force": ctx.force})
        if ctx.config.get("path"):
            data = ctx.http.get_json(ctx.base_url("http://invalid.test") + ctx.config["path"])
            text = str(data.get("text"))
        else:
            text = ctx.config.get("text", "hello")
        with orm.db_session:
            row = ctx.db.Quote.get(id="general_probe:1")
            if row is None:
                ctx.db.Quote(
                    id="general_probe:1",
                    text=text,
                    integration_type=ctx.integration_type,
                    created_at_ms=ctx.now_ms(),
                )
            else:
                row.text = text
        ctx.log(f"probe wrote {text!r} with token {ctx.secrets.get('token', '-')}")
        return 1

    def collect_broken(self, ctx: Any) -> None:
        raise RuntimeError(f"probe failure using {ctx.secrets.get('token', 'no token')}")

    def collect_stuck(self, ctx: Any) -> None:
        self.calls.append({"stuck": True})
        self.release.wait(30)  # ignores cancellation on purpose: a misbehaving collector

    @hookimpl
    def register_integration_types(self) -> list[IntegrationType]:
        return [
            IntegrationType(
                "general_probe",
                "Probe",
                SCHEMA,
                {"text": "hello"},
                family="general",
                collect=self.collect_probe,
                secret_fields=("token",),
            ),
            IntegrationType(
                "general_broken",
                "Broken",
                SCHEMA,
                {},
                family="general",
                collect=self.collect_broken,
                secret_fields=("token",),
            ),
            IntegrationType(
                "general_stuck", "Stuck", SCHEMA, {}, family="general", collect=self.collect_stuck
            ),
            IntegrationType(
                "calendar_probe",
                "Account probe",
                SCHEMA,
                {},
                family="calendar",
                collect=self.collect_probe,
                requires_accounts=True,
                required_account_types=("google",),
            ),
        ]
