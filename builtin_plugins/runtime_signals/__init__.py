"""Runtime signals: ``PUT /v1/runtime/signals/{id}`` and friends, kept in memory with a TTL.

Folder-plugin sidecars, sensors and automation send them; the curator's runtime inputs
(``internet_reachable``, ``motion_detected``, ``beacon_detected``,
``display_server_reachable``) and its ``runtime_signal`` predicate read them through the
``RUNTIME_SIGNALS`` service. ``docs/folder-plugins.md`` documents the routes.
"""
from __future__ import annotations

from typing import Any

from hookspecs import Feature, Permission, hookimpl
from hookspecs.services import RUNTIME_SIGNALS
from builtin_plugins.runtime_signals import routes as signal_routes
from builtin_plugins.runtime_signals.store import SignalStore


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    host.services[RUNTIME_SIGNALS] = SignalStore(host.clock.now_ms)


FEATURE = Feature(
    permissions=[Permission(signal_routes.RUNTIME_SIGNALS_WRITE, "set and delete runtime signals", ("operator",))],
    routes=signal_routes.routes,
)
