"""The curator: content categories, configurations with schedule rules and layered members.

See ``docs/content.md`` for the layer semantics, the rule predicates and the runtime state.
Other plugins feed runtime inputs through ``host.services[CURATOR_RUNTIME]`` (or, over
HTTP, runtime signals: the ``RUNTIME_SIGNALS`` service) and read the active view through
``host.services[CURATOR]``.
"""
from __future__ import annotations

from typing import Any

from marshmallow import fields

from pony import orm

from hookspecs import AUTHENTICATED, Feature, Operation, Route, hookimpl
from hookspecs.permissions import CURATOR_WRITE, declare
from hookspecs.services import CATEGORIES, CURATOR, CURATOR_RUNTIME, EVENTS, RUNTIME_SIGNALS, service
from svc_host.kit.services import publish
from hookspecs.records import record
from builtin_plugins.curator import categories, configurations
from builtin_plugins.curator.active import active_view
from builtin_plugins.curator.predicates import BUILTIN_PREDICATES, RuntimeState


RuntimeStateSchema = record("RuntimeStateSchema", display_adopted=fields.Boolean, internet_reachable=fields.Boolean,
                            display_server_reachable=fields.Boolean, motion_detected=fields.Boolean,
                            beacon_detected=fields.Boolean)


PredicateSchema = record("PredicateSchema", id=fields.String, label=fields.String, description=fields.String,
                         implemented=fields.Boolean)


PredicateListSchema = record("PredicateListSchema", items=fields.List(fields.Nested(PredicateSchema)))


class ActiveResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = active_view(self.host)


class RuntimeStateResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = self.host.services[CURATOR_RUNTIME].snapshot(self.host)


class PredicatesResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        predicates = sorted(self.host.registries.curator_predicates.values(), key=lambda p: p.id)
        resp.media = {"items": [{"id": p.id, "label": p.label, "description": p.description,
                                 "implemented": bool(p.implemented and p.evaluate is not None)}
                                for p in predicates]}


class CuratorService:
    """``host.services[CURATOR]``: the active view for the display's program."""

    def __init__(self, host: Any):
        self.host = host

    def active_view(self) -> dict:
        with orm.db_session:
            return active_view(self.host)

    def next_change_ms(self) -> int | None:
        """While an enabled configuration has rules: the next whole minute (time predicates have
        minute resolution; state predicates publish ``curator`` when fed or signalled), or the
        next runtime signal's expiry when that comes first; None otherwise."""
        with orm.db_session:
            ruled = self.host.db.CuratorConfiguration.select(lambda c: c.enabled and c.rules).exists()
        if not ruled:
            return None
        due = (self.host.clock.now_ms() // 60_000 + 1) * 60_000
        signals = service(self.host, RUNTIME_SIGNALS)
        expiry = signals.next_expiry_ms() if signals is not None else None
        return min(due, expiry) if expiry is not None else due


def _runtime_state(host: Any) -> RuntimeState:
    def signals() -> dict:
        store = service(host, RUNTIME_SIGNALS)
        return store.values() if store is not None else {}

    return host.services.setdefault(CURATOR_RUNTIME, RuntimeState(signals))


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    runtime = _runtime_state(host)
    runtime.on_change = lambda: publish(host, "curator")  # a fed input can change the active view
    events = service(host, EVENTS)
    if events is not None:  # so can a runtime signal (the runtime_signals plugin's topic)
        events.subscribe(lambda topic: publish(host, "curator") if topic == "runtime_signals" else None)
    host.services[CURATOR] = CuratorService(host)
    host.services[CATEGORIES] = categories.Categories(host.db)


@hookimpl
def register_routes(host: Any) -> list:
    _runtime_state(host)
    tags = ("curator",)
    return categories.routes(host) + configurations.routes(host) + [
        Route("/v1/curator/active", ActiveResource(host), {
            "GET": Operation(AUTHENTICATED, "active configurations, program controls and effective members",
                             tags=tags)}),
        Route("/v1/curator/runtime-state", RuntimeStateResource(host), {
            "GET": Operation(AUTHENTICATED, "runtime state inputs of schedule predicates",
                             response=RuntimeStateSchema, tags=tags)}),
        Route("/v1/meta/curator-state-predicates", PredicatesResource(host), {
            "GET": Operation(AUTHENTICATED, "the predicate catalog", response=PredicateListSchema,
                             tags=("meta",))}),
    ]


FEATURE = Feature(
    permissions=declare(CURATOR_WRITE),
    entities=(categories.define_entities, configurations.define_entities),
    migrations=categories.MIGRATIONS,
    curator_predicates=BUILTIN_PREDICATES,
)
