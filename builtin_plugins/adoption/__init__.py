"""Adoption (spec 4.1, 5.3-5.7): the pairing flow that hands a client its API key.

``POST /v1/adoption/request`` shows a challenge on the display (the adoption layer's card,
:mod:`.display`, Kivy-only; an alert through ``host.services["alerts"]`` when present; and
one stderr line whenever no real window is shown); ``POST /v1/adoption/confirm`` trades it
for a key. Both, and the expiry sweep, publish the change event ``adoption``.
``host.services["adoption"]`` offers ``pending_challenges()``. Client administration lives
in ``clients``.
"""
from __future__ import annotations

from typing import Any

from hookspecs import LayerSpec, Permission, hookimpl
from hookspecs.permissions import ADOPTION_ADMIN, declare
from builtin_plugins.adoption.challenges import AdoptionService, define_entities
from builtin_plugins.adoption.routes import routes


def _service(host: Any) -> AdoptionService:
    service = host.services.get("adoption")
    if service is None:
        service = host.services["adoption"] = AdoptionService(host)
    return service


@hookimpl
def register_permissions() -> list[Permission]:
    return declare(ADOPTION_ADMIN)


@hookimpl
def register_entities(db: Any) -> None:
    define_entities(db)


@hookimpl
def register_routes(host: Any) -> list[Any]:
    if "clients" not in host.plugins.info:
        raise RuntimeError("adoption issues API keys through the clients plugin: enable clients or disable adoption")
    _service(host)
    return routes(host)


@hookimpl
def startup(host: Any) -> None:
    _service(host).start()


@hookimpl
def register_display_layers() -> list[LayerSpec]:
    return [LayerSpec("adoption", 400, "builtin_plugins.adoption.display:AdoptionLayer", area="content",
                      topics=("adoption",),
                      description="the pending adoption challenge, for the person in front")]


@hookimpl
def shutdown(host: Any) -> None:
    service = host.services.get("adoption")
    if service is not None:
        service.stop()


# Builtin packages this one imports (besides the shared kit `common`); tests/host/test_boundaries.py
# checks every cross-package import against it, and the host disables this plugin when one is off.
REQUIRES: tuple[str, ...] = ("clients",)
