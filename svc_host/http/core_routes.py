"""The two routes the host serves itself, with every plugin disabled: health and OpenAPI."""
from __future__ import annotations

import functools
import os
import platform
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from marshmallow import Schema, fields

from hookspecs import CLOCK_HEADER, PUBLIC, Operation, Route
from hookspecs.services import HEALTH_SECTIONS

_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64", "armv7l": "arm", "i686": "x86"}


# Required fields of GET /v1/health answered by a plugin's health_fields (maintenance, folder_plugins).
PLUGIN_FIELD_DEFAULTS = {"upgrade_capable": False, "plugins_dir_configured": False}


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    app = fields.String(required=True)
    version = fields.String(required=True)
    build = fields.String(required=True)
    schema_version = fields.Integer(required=True)
    platform_os = fields.String()
    platform_os_version = fields.String()
    hostname = fields.String()
    cpu_count = fields.Integer()
    python_version = fields.String(metadata={"description": "runtime version of the implementation language"})
    platform_arch = fields.String(required=True)
    upgrade_capable = fields.Boolean(required=True)
    uptime_seconds = fields.Integer(required=True)
    plugins_dir_configured = fields.Boolean(required=True)
    display_power = fields.String(metadata={"enum": ["on", "off"], "description": "with the power plugin"})
    saas = fields.Dict(metadata={
        "description": "SVC_SAAS_MODE=1 only: {connected, last_event_at_ms, media_cached, media_failed}"})


@functools.cache  # once per process (each host's health resource and app asked git again)
def _build_id() -> str:
    """The git commit of the source tree when there is one, else ``release``; computed once."""
    source = Path(__file__).resolve().parents[2]
    if (source / ".git").exists():
        try:
            out = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True, timeout=2, check=False)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return "release"


def platform_arch() -> str:
    machine = platform.machine().lower()
    return _ARCH.get(machine, machine or "unknown")


class HealthResource:
    def __init__(self, host: Any):
        from svc_host import __version__

        self.host = host
        self.static = {
            "status": "ok",
            "app": "svc-display",
            "version": __version__,
            "build": _build_id(),
            "platform_os": platform.system().lower() or "unknown",
            "platform_os_version": platform.release() or "unknown",
            "hostname": socket.gethostname(),
            "cpu_count": os.cpu_count() or 1,
            "python_version": platform.python_version(),
            "platform_arch": platform_arch(),
        }

    def on_get(self, req, resp):  # noqa: ANN001
        own = {
            **self.static,
            "schema_version": self.host.schema_version(),
            "uptime_seconds": int(time.monotonic() - self.host.started_at),
        }
        # Fields the interface requires whose owner is a plugin (health_fields): False without it.
        resp.media = {**PLUGIN_FIELD_DEFAULTS}
        for _name, fields_ in self.host.plugins.call_quietly("health_fields", host=self.host):
            resp.media.update({key: value for key, value in dict(fields_).items() if key not in own})
        resp.media.update(own)
        # Blocks plugins add through the HEALTH_SECTIONS service (the cloud feed's ``saas``).
        for name, section in dict(self.host.services.get(HEALTH_SECTIONS) or {}).items():
            resp.media[name] = section()
        # The display's clock in epoch ms, read last: a controller measures its offset to the
        # millisecond (the Date header has whole seconds; docs/controller.md "Displays in step").
        resp.set_header(CLOCK_HEADER, str(self.host.clock.now_ms()))


class OpenApiResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req, resp):  # noqa: ANN001
        resp.media = self.host.openapi


def core_routes(host: Any) -> list[Route]:
    return [
        Route("/v1/health", HealthResource(host),
              {"GET": Operation(PUBLIC, "service health", response=HealthSchema, tags=["host"])}),
        Route("/v1/openapi.json", OpenApiResource(host),
              {"GET": Operation(PUBLIC, "this OpenAPI 3.1 document", tags=["host"])}, db_session=False),
    ]
