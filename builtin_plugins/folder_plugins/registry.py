"""The ``FOLDER_PLUGINS`` service: the discovered plugins, their sidecars and their listing.

Rows are what ``GET /v1/plugins`` answers and ``svc-display plugins list`` prints: every
entry point (``svc_host.plugins.PluginHost.states``) and every folder plugin with its
state. The host writes ``<data dir>/plugins-state.json`` (0600,
``svc_host.live_state.write_state_file``) when it starts serving and removes it when it stops;
this service rewrites it with its sidecars' rows at every change of state. The CLI reads it
(it runs in another process).
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from builtin_plugins.folder_plugins import plugin_http
from builtin_plugins.folder_plugins.keys import PluginKeys
from builtin_plugins.folder_plugins.manifest import FolderPlugin, Refused, discover, entry_point_names
from builtin_plugins.folder_plugins.supervisor import STOP_GRACE_SECONDS, Sidecar
from builtin_plugins.folder_plugins.templates import TemplateError
from hookspecs.services import INTEGRATIONS, SCREEN_REPORT, service
from svc_host.live_state import write_state_file
from svc_host.kit.security import ensure_certificate

log = logging.getLogger(__name__)

DISABLED_REASON = "disabled by SVC_DISPLAY_DISABLE_PLUGINS"


def display_api(settings: Any) -> tuple[str, str | None]:
    """The display's own URL as a sidecar on this machine reaches it, and the certificate to trust."""
    tls = settings.http_tls and settings.http_server != "waitress"
    bind = settings.http_bind_ip
    if bind in ("0.0.0.0", "::", "127.0.0.1"):
        address = "127.0.0.1"
    else:
        address = f"[{bind}]" if ":" in bind else bind
    url = f"{'https' if tls else 'http'}://{address}:{settings.http_port}"
    return url, str(ensure_certificate(settings)[0]) if tls else None


def folder_row(plugin: FolderPlugin, state: str, reason: str | None,
               sidecar: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": plugin.id, "name": plugin.name, "kind": "folder", "origin": "folder",
            "version": plugin.version, "description": plugin.description, "folder": str(plugin.folder),
            "state": state, "reason": reason,
            "sidecar": sidecar, "templates": {name: str(path.relative_to(plugin.folder))
                                                      for name, path in plugin.templates.items()}}


def refused_row(item: Refused) -> dict[str, Any]:
    return {"id": item.label, "name": item.folder.name, "kind": "folder", "origin": "folder", "version": "",
            "description": "", "folder": str(item.folder), "state": "failed", "reason": item.reason,
            "sidecar": None, "templates": {}}


def describe(settings: Any) -> list[dict[str, Any]]:
    """The folder plugins as a start would find them, state ``stopped`` (no server runs)."""
    folder = settings.plugin_values("folder_plugins").plugins_dir
    if folder is None:
        return []
    plugins, refused = discover(folder, entry_point_names(), quiet=True)
    rows = [folder_row(p, "disabled" if p.id in settings.disable_plugins else "stopped",
                       DISABLED_REASON if p.id in settings.disable_plugins else None) for p in plugins]
    return rows + [refused_row(item) for item in refused]


class FolderPlugins:
    """Discovered at startup; sidecars start once the display serves (:meth:`start_sidecars`)."""

    def __init__(self, host: Any):
        self.host = host
        values = host.settings.plugin_values("folder_plugins")
        self.keys = PluginKeys()
        self.plugins: list[FolderPlugin] = []
        self.refused: list[Refused] = []
        if values.plugins_dir is not None:
            self.plugins, self.refused = discover(values.plugins_dir, entry_point_names())
            log.info("folder plugins: %d found in %s, %d refused", len(self.plugins), values.plugins_dir,
                     len(self.refused))
        timeout = values.plugin_start_timeout_seconds
        self.sidecars = {plugin.id: Sidecar(plugin, self.keys, timeout, self.changed)
                         for plugin in self.plugins if plugin.sidecar is not None and self.enabled(plugin)}
        self.serving = False
        self._write_lock = threading.Lock()

    def enabled(self, plugin: FolderPlugin) -> bool:
        return plugin.id not in self.host.settings.disable_plugins

    def bind_collectors(self) -> None:
        """Give each sidecar its own enabled ``plugin_http.<id>`` integration (kept when it exists),
        collected as soon as the sidecar answers its health path, then on its schedule."""
        engine = service(self.host, INTEGRATIONS)
        if engine is None:
            return
        for plugin_id, sidecar in self.sidecars.items():
            integration_id = plugin_http.row_id(plugin_id)
            if engine.ensure_row(integration_id, plugin_http.TYPE_ID, {"pluginId": plugin_id}, enabled=True):
                log.info("plugin %s: integration %s added (enabled)", plugin_id, integration_id)
            sidecar.on_running = lambda integration_id=integration_id: engine.run_soon(integration_id)

    def start_sidecars(self) -> None:
        """Called by the ``serving`` hook: every enabled plugin's sidecar, each on its own thread."""
        api_url, api_ca = display_api(self.host.settings)
        self.serving = True
        self.changed()
        for sidecar in self.sidecars.values():
            sidecar.start(api_url, api_ca)

    def stop(self) -> None:
        """SIGTERM to every sidecar at once; SIGKILL to what is left after the grace period."""
        for sidecar in self.sidecars.values():
            sidecar.request_stop()
        for sidecar in self.sidecars.values():
            sidecar.join(STOP_GRACE_SECONDS + 5)
        self.serving = False  # the host removes the state file once every plugin has shut down

    def changed(self) -> None:
        """A state changed: rewrite the state file the CLI reads (only in a serving process)."""
        if not self.serving:
            return
        with self._write_lock:
            try:
                write_state_file(self.host.settings.data_dir, self.rows())
            except OSError as exc:
                log.warning("plugins state file not written: %s", exc)

    def folder_rows(self) -> list[dict[str, Any]]:
        rows = []
        for plugin in self.plugins:
            if not self.enabled(plugin):
                rows.append(folder_row(plugin, "disabled", DISABLED_REASON))
                continue
            sidecar = self.sidecars.get(plugin.id)
            if sidecar is not None:
                snapshot = sidecar.snapshot()
                rows.append(folder_row(plugin, snapshot.pop("state"), snapshot.pop("reason"), snapshot))
            else:
                rows.append(folder_row(plugin, "running", None))
        return rows + [refused_row(item) for item in self.refused]

    def rows(self) -> list[dict[str, Any]]:
        rows = self.host.plugins.states(loaded="running")
        report = service(self.host, SCREEN_REPORT)  # a plugin whose renderer is failing now: degraded
        degraded = report.degraded() if report is not None else {}
        for row in rows:
            if row["state"] == "running" and row["id"] in degraded:
                row["state"], row["reason"] = "degraded", degraded[row["id"]]
        return rows + self.folder_rows()

    def row(self, plugin_id: str) -> dict[str, Any] | None:
        rows = [r for r in self.folder_rows() if r["id"] == plugin_id]
        accepted = [r for r in rows if r["state"] != "failed" or r["sidecar"] is not None]
        return (accepted or rows or [None])[0]

    def template(self, plugin_id: str, name: str) -> tuple[Path, dict[str, Any]]:
        """The folder of ``plugin_id`` and its template ``name`` as validated at startup;
        :class:`.templates.TemplateError` saying why there is none."""
        plugin = next((p for p in self.plugins if p.id == plugin_id), None)
        if plugin is None:
            refused = next((r for r in self.refused if r.plugin_id == plugin_id), None)
            raise TemplateError(f"the folder plugin {plugin_id!r} was refused at startup: {refused.reason}"
                                if refused is not None else f"no folder plugin {plugin_id!r} is installed")
        if not self.enabled(plugin):
            raise TemplateError(f"the folder plugin {plugin_id!r} is {DISABLED_REASON}")
        if name not in plugin.layouts:
            known = ", ".join(sorted(plugin.layouts)) or "none"
            raise TemplateError(f"the folder plugin {plugin_id!r} has no template {name!r} (it has: {known})")
        return plugin.folder, plugin.layouts[name]

    def sidecar_url(self, plugin_id: str) -> str | None:
        sidecar = self.sidecars.get(plugin_id)
        return sidecar.url() if sidecar is not None else None
