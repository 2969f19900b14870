"""The cloud feed (CONTRACT "Cloud feed", spec 1.1): ``SVC_SAAS_MODE=1`` replaces the local
collectors with a server-sent-events feed from ``SVC_SAAS_API_URL``.

Rows land in the tables of the features' content lists (each list's feed kind, and alerts)
with provenance ``saas_feed``; the consumer runs in a background thread of a serving host (one built with
routes) and adds ``saas: {connected, last_event_at_ms}`` to ``GET /v1/health`` through the
``HEALTH_SECTIONS`` service. See docs/cloud-feed.md.

``SVC_SAAS_RECONNECT_MIN_MS`` (``settings.saas_reconnect_min_ms``, default 1000) sets the
backoff floor; tests lower it.
"""

from __future__ import annotations

from typing import Any

from hookspecs import hookimpl
from hookspecs.services import CLOUD_FEED, HEALTH_SECTIONS, INTEGRATION_TELEMETRY, service

from builtin_plugins.cloud_feed.consumer import FeedConsumer

SERVICE = CLOUD_FEED


@hookimpl
def startup(host: Any) -> None:
    if not (host.settings.saas_mode and host.routes):
        return
    # settings and integrations start first (their startup is tryfirst): their services are here.
    consumer = FeedConsumer(host, service(host, INTEGRATION_TELEMETRY),
                            floor_s=host.settings.saas_reconnect_min_ms / 1000)
    host.services[SERVICE] = consumer
    host.services.setdefault(HEALTH_SECTIONS, {})["saas"] = consumer.health
    consumer.start()


@hookimpl
def shutdown(host: Any) -> None:
    consumer = host.services.get(SERVICE)
    if consumer is not None:
        consumer.stop()
