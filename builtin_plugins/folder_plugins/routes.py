"""``GET /v1/plugins``: every plugin, entry point or folder, with its state (CONTRACT "Folder plugins")."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from hookspecs import Operation, Route
from hookspecs.services import FOLDER_PLUGINS, require
from hookspecs.permissions import INTEGRATIONS_READ
from hookspecs.records import Nullable, record
from svc_host.kit.rest import not_found

STATES = ("running", "degraded", "starting", "restarting", "failed", "disabled")


SidecarSchema = record(
    "SidecarSchema", pid=Nullable(fields.Integer), port=Nullable(fields.Integer), restart_count=fields.Integer,
    started_at_ms=Nullable(fields.Integer(metadata={"description": "when the current (or last) process started"})),
    backoff_seconds=Nullable(fields.Float(metadata={"description": "restarting: the wait before the next start"})),
    health_path=fields.String, command=fields.List(fields.String()))


class PluginSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(("entry_point", "folder")))
    origin = fields.String(required=True,
                           validate=validate.OneOf(("builtin", "third-party", "test", "folder")))
    version = fields.String(required=True)
    state = fields.String(required=True, validate=validate.OneOf(STATES))
    reason = fields.String(required=True, allow_none=True,
                           metadata={"description": "why failed, degraded (a renderer of it is failing "
                                                    "on screen), disabled, restarting or not healthy"})
    module = fields.String(metadata={"description": "entry points: the module"})
    hooks = fields.List(fields.String(), metadata={"description": "entry points: the hooks implemented"})
    description = fields.String(metadata={"description": "folder plugins: from the manifest"})
    folder = fields.String(metadata={"description": "folder plugins: the plugin's folder"})
    sidecar = fields.Nested(SidecarSchema, allow_none=True,
                            metadata={"description": "folder plugins with a sidecar"})
    templates = fields.Dict(keys=fields.String(), values=fields.String(),
                            metadata={"description": "folder plugins: template name -> file"})


PluginList = record("PluginList", items=fields.List(fields.Nested(PluginSchema)))


class PluginsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = {"items": require(self.host, FOLDER_PLUGINS).rows()}


class PluginResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        row = next((row for row in require(self.host, FOLDER_PLUGINS).rows() if row["id"] == id), None)
        if row is None:
            raise not_found("plugin")
        resp.media = row


def routes(host: Any) -> list[Route]:
    return [Route("/v1/plugins/{id}", PluginResource(host), {
        "GET": Operation(INTEGRATIONS_READ, "one plugin, entry point or folder, with its state",
                         response=PluginSchema, tags=("plugins",)),
    }, db_session=False), Route("/v1/plugins", PluginsResource(host), {
        "GET": Operation(INTEGRATIONS_READ, "every plugin, entry point or folder, with its state "
                                            "(sidecars: pid, port, restart count)", response=PluginList,
                         tags=("plugins",)),
    }, db_session=False)]
