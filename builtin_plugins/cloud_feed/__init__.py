"""The cloud feed (CONTRACT "Cloud feed", spec 1.1): ``SVC_SAAS_MODE=1`` replaces the local
collectors with a server-sent-events feed from ``SVC_SAAS_API_URL``.

Rows land in the tables of the features' content lists (each list's feed kind, and alerts)
with provenance ``saas_feed``; the consumer runs in a background thread of a serving host (one built with
routes) and adds ``saas: {connected, last_event_at_ms}`` to ``GET /v1/health`` through the
``HEALTH_SECTIONS`` service. See docs/cloud-feed.md.

The plugin declares ``SVC_SAAS_API_URL``, ``SVC_SAAS_DISPLAY_ID``, ``SVC_SAAS_API_KEY`` (each
required when ``SVC_SAAS_MODE=1``, the host's switch) and ``SVC_SAAS_RECONNECT_MIN_MS`` (the
backoff floor, default 1000; tests lower it) through ``register_settings``.
"""

from __future__ import annotations

from typing import Any

from hookspecs import Feature, Setting, hookimpl
from hookspecs.services import CLOUD_FEED, HEALTH_SECTIONS, INTEGRATION_TELEMETRY, require, service

from builtin_plugins.cloud_feed.consumer import FeedConsumer

SERVICE = CLOUD_FEED


@hookimpl
def startup(host: Any) -> None:
    if not (host.settings.saas_mode and host.routes):
        return
    # settings and integrations start first (their startup is tryfirst): their services are here.
    consumer = FeedConsumer(host, service(host, INTEGRATION_TELEMETRY),
                            floor_s=host.settings.plugin_values("cloud_feed").saas_reconnect_min_ms / 1000)
    host.services[SERVICE] = consumer
    require(host, HEALTH_SECTIONS)["saas"] = consumer.health  # the host publishes the dict
    consumer.start()


FEATURE = Feature(
    stops=[SERVICE],
    settings=[
        Setting("SVC_SAAS_API_URL", str, None, "the SaaS controller's URL", schemes=("http", "https"),
                required_when="SVC_SAAS_MODE"),
        Setting("SVC_SAAS_DISPLAY_ID", str, None, "this display's id at the controller", required_when="SVC_SAAS_MODE"),
        Setting("SVC_SAAS_API_KEY", str, None, "this display's key at the controller", required_when="SVC_SAAS_MODE",
                secret=True),
        Setting("SVC_SAAS_RECONNECT_MIN_MS", int, 1000, "cloud feed reconnect backoff floor in ms", low=10,
                high=60000),
    ],
)
