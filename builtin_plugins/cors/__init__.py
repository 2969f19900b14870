"""CORS (spec 5.11-5.12): the stored allowed-origin list and the middleware that applies it.

``host.services[CORS]`` is the :class:`~builtin_plugins.cors.store.OriginStore`;
adoption stores the caller's origin there on a successful confirm or admin grant.
"""
from __future__ import annotations

from typing import Any

from hookspecs import Feature, hookimpl
from hookspecs.permissions import ADOPTION_ADMIN, declare
from builtin_plugins.cors.middleware import CorsMiddleware
from builtin_plugins.cors.policy import PrivateOriginPolicy
from builtin_plugins.cors.store import OriginStore, define_entities
from hookspecs.services import CORS, CORS_POLICY, ORIGIN_ALLOWED


def _store(host: Any) -> OriginStore:
    store = host.services.get(CORS)
    if store is None:
        store = host.services[CORS] = OriginStore(host)
        host.services[CORS_POLICY] = PrivateOriginPolicy(host.clock.now_ms)
    return store


@hookimpl
def register_middleware(host: Any) -> list[Any]:
    store = _store(host)
    return [CorsMiddleware(store, host.services[CORS_POLICY])]


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    store = _store(host)
    store.seed_from_settings()
    # The live-preview WebSocket checks Origin against the same stored list.
    host.services[ORIGIN_ALLOWED] = store.is_allowed


FEATURE = Feature(
    # the origin routes
    permissions=declare(ADOPTION_ADMIN),
    entities=define_entities,
    routes="builtin_plugins.cors.routes:routes",
)
