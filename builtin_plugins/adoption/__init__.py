"""Adoption (spec 4.1, 5.3-5.7): the pairing flow that hands a client its API key.

``POST /v1/adoption/request`` shows a challenge on the display (the adoption layer's card,
:mod:`.display`, Kivy-only; an alert through ``host.services[ALERTS]`` when present; and
one stderr line whenever no real window is shown); ``POST /v1/adoption/confirm`` trades it
for a key. Both, and the expiry sweep, publish the change event ``adoption``.
``host.services[ADOPTION]`` offers ``pending_challenges()``. Client administration lives
in ``clients``. Pending requests do not outlive the server: ``serving`` drops them.

The adoption feature also owns the first-start screen (:mod:`.welcome`): while no slide is
enabled the ``welcome`` layer draws the display's name, the URLs and certificate fingerprint
the server announced, and how to pair from a controller (asking the screens service through
its typed key; the compositor knows no feature).
"""
from __future__ import annotations

import logging
from typing import Any

from pony import orm

from hookspecs import Feature, LayerSpec, Setting, hookimpl
from hookspecs.permissions import ADOPTION_ADMIN, declare
from builtin_plugins.adoption.challenges import LAYER, TOPIC, AdoptionService, define_entities
from builtin_plugins.adoption.routes import routes
from hookspecs.services import ADOPTION
from svc_host.kit.services import events_batch, publish

log = logging.getLogger(__name__)


def _service(host: Any) -> AdoptionService:
    service = host.services.get(ADOPTION)
    if service is None:
        service = host.services[ADOPTION] = AdoptionService(host)
    return service


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
def serving(host: Any) -> None:
    """A (re)started server forgets the pending requests of the one before it, before it answers
    any request (the hook runs before the server's first request is read), and the welcome slide
    learns the URLs and fingerprint the server just announced (the ``adoption`` change event)."""
    with events_batch(host), orm.db_session:
        dropped = _service(host).drop_all()
        publish(host, TOPIC)
    if dropped:
        log.info("adoption: %d pending request(s) of the previous run dropped", dropped)


# Builtin packages this one imports (besides the shared kit `common`); tests/host/test_boundaries.py
# checks every cross-package import against it, and the host disables this plugin when one is off.
REQUIRES: tuple[str, ...] = ("clients",)


FEATURE = Feature(
    stops=[ADOPTION],
    permissions=declare(ADOPTION_ADMIN),
    settings=[
        Setting("SVC_DISPLAY_ADOPTION_RATE_PER_MIN", int, 10, "adoption requests per minute (0: no limit)",
                low=0, high=100000),
    ],
    entities=define_entities,
    display_layers=[LayerSpec(LAYER, 400, "builtin_plugins.adoption.display:AdoptionLayer", area="content",
                              topics=(TOPIC,),
                              description="the pending adoption requests (newest first, at most three) on a corner "
                                          "panel the slide re-fits beside, for the person in front"),
                    LayerSpec("welcome", 110, "builtin_plugins.adoption.welcome:WelcomeLayer", area="free",
                              topics=("screens", TOPIC, "settings"),
                              description="with no enabled slide: the display's name, URLs, certificate fingerprint "
                                          "and how to pair")],
)
