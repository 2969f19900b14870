"""Adoption (spec 4.1, 5.3-5.7): the pairing flow that hands a client its API key.

``POST /v1/adoption/request`` shows a challenge on the display (a security alert through
``host.services["alerts"]`` when present, and one stderr line in headless mode);
``POST /v1/adoption/confirm`` trades it for a key. ``host.services["adoption"]`` offers
``pending_challenges()`` to the display. Client administration lives in ``clients``.
"""
from __future__ import annotations

from typing import Any

from hookspecs import hookimpl
from builtin_plugins.adoption.challenges import AdoptionService, define_entities
from builtin_plugins.adoption.routes import routes


def _service(host: Any) -> AdoptionService:
    service = host.services.get("adoption")
    if service is None:
        service = host.services["adoption"] = AdoptionService(host)
    return service


@hookimpl
def register_entities(db: Any) -> None:
    define_entities(db)


@hookimpl
def register_routes(host: Any) -> list[Any]:
    if "ApiClient" not in host.db.entities:
        raise RuntimeError("adoption issues API keys through the clients plugin: enable clients or disable adoption")
    _service(host)
    return routes(host)


@hookimpl
def startup(host: Any) -> None:
    _service(host).start()


@hookimpl
def shutdown(host: Any) -> None:
    service = host.services.get("adoption")
    if service is not None:
        service.stop()
