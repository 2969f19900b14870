"""Folder plugins (``SVC_DISPLAY_PLUGINS_DIR``): plugins outside Python, and what they reach the display with.

- :mod:`.manifest`: discovery and the manifest's JSON Schema;
- :mod:`.templates`: the template format (JSON Schema, placeholders), validated with the manifest;
- :mod:`.supervisor`: each sidecar's process, health checks, restarts and stop;
- :mod:`.keys`: each plugin's own key (principal ``plugin:<id>``);
- :mod:`.registry`: the ``FOLDER_PLUGINS`` service, its rows and the state file;
- :mod:`.routes`: ``GET /v1/plugins``;
- collector ``plugin_http`` (``plugin_http.py``): a sidecar's HTTP contract;
- types (``types.json``): slide and overlay ``plugin_template``, overlay ``plugin_web`` (a
  plugin's page, view-only), ticker ``plugin`` (the lines of key-value
  ``ticker.marquee.<pluginId>``, ``items.py``).

Each sidecar's integration row is bound in ``startup`` (the integrations engine, tryfirst,
has started); sidecars start in the ``serving`` hook (the display's API answers by then) and stop in
``shutdown``. ``docs/folder-plugins.md`` is the reference. (``runtime.signals_write``, which
a plugin's key holds, is declared by the ``runtime_signals`` plugin, whose routes it guards.)
"""
from __future__ import annotations

from pathlib import Path

from typing import Any

from builtin_plugins.folder_plugins import plugin_http
from builtin_plugins.folder_plugins import routes as plugin_routes
from builtin_plugins.folder_plugins.registry import FolderPlugins, describe
from hookspecs import Feature, Setting, hookimpl
from hookspecs.catalog import load_types
from hookspecs.permissions import INTEGRATIONS_READ, declare
from hookspecs.services import EVENTS, FOLDER_PLUGINS, SCREEN_TOPIC, service


@hookimpl
def health_fields(host: Any) -> dict[str, Any]:
    return {"plugins_dir_configured": host.settings.plugin_values("folder_plugins").get("plugins_dir") is not None}


@hookimpl
def startup(host: Any) -> None:
    folder_plugins = host.services[FOLDER_PLUGINS] = FolderPlugins(host)
    folder_plugins.bind_collectors()  # the integrations engine started before (its startup is tryfirst)
    events = service(host, EVENTS)
    if events is not None:  # a renderer starts or stops failing: its plugin's state (degraded) changes
        events.subscribe(lambda topic: folder_plugins.changed() if topic == SCREEN_TOPIC else None)


@hookimpl
def serving(host: Any) -> None:
    host.services[FOLDER_PLUGINS].start_sidecars()


@hookimpl
def authenticate_token(host: Any, token: str) -> Any:
    folder_plugins = service(host, FOLDER_PLUGINS)
    return folder_plugins.keys.authenticate(token) if folder_plugins is not None else None


@hookimpl
def describe_plugins(settings: Any) -> list[dict[str, Any]]:
    return describe(settings)


TYPES = load_types(__name__)
FEATURE = Feature(
    stops=[FOLDER_PLUGINS],
    # GET /v1/plugins
    permissions=declare(INTEGRATIONS_READ),
    settings=[
        Setting("SVC_DISPLAY_PLUGINS_DIR", Path, None, "folder of extra plugins"),
        Setting("SVC_DISPLAY_BROWSER", str, None,
                "the Chromium (or Chrome) that draws plugin_web overlays (else the first on PATH)"),
        Setting("SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS", int, 30,
                "a folder plugin's sidecar must answer its health path within (else it is restarted)", low=1, high=600),
    ],
    integration_types=[plugin_http.INTEGRATION_TYPE],
    types=TYPES,
    routes=plugin_routes.routes,
)
