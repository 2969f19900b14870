"""Display power (CONTRACT "Display power", docs/power.md): the panel off outside opening hours.

- :mod:`.schedule`: the weekly schedule (validation, the state it gives, its next change);
- :mod:`.backends`: ``cec``, ``vcgencmd``, ``wlr``, ``dpms``, ``none``;
- :mod:`.controller`: the ``DISPLAY_POWER`` and ``CANVAS_BLANK`` services and the worker
  thread that switches the panel;
- :mod:`.routes`: ``/v1/display/power`` and ``/v1/display/power/schedule``.

The schedule and the override are settings (in backups, kept across restarts); ``GET
/v1/health`` gains ``display_power``; the display runtime keeps the canvas dark while
``CANVAS_BLANK.blank()`` says so.
"""
from __future__ import annotations

import logging
from typing import Any

from builtin_plugins.power import routes as power_routes
from builtin_plugins.power.backends import BACKENDS, DEFAULT_TIMEOUT, ENV_BACKEND, ENV_TIMEOUT, choose
from builtin_plugins.power.controller import PowerService
from hookspecs import Feature, Permission, Setting, hookimpl
from hookspecs.permissions import OPERATORS
from hookspecs.services import CANVAS_BLANK, DISPLAY_POWER, HEALTH_SECTIONS, require

log = logging.getLogger(__name__)


@hookimpl
def startup(host: Any) -> None:
    values = host.settings.plugin_values("power")
    backend, problem = choose(host.settings.headless, values.backend or "", values.command_timeout)
    if problem:
        log.warning("display power: %s", problem)
    available = backend.available()
    log.info("display power: backend %s%s", backend.name, "" if available else " (its tool is not available)")
    power = PowerService(host, backend, available)
    host.services[DISPLAY_POWER] = power
    host.services[CANVAS_BLANK] = power
    require(host, HEALTH_SECTIONS)["display_power"] = power.state  # the host publishes the dict
    power.start()


FEATURE = Feature(
    stops=[DISPLAY_POWER],
    permissions=[Permission(power_routes.DISPLAY_POWER_PERMISSION, "turn the display on and off, edit its power schedule",
                            OPERATORS)],
    settings=[
        Setting(ENV_BACKEND, str, None, "cec, vcgencmd, wlr, dpms or none (default: the first whose tool "
                "is available)", choices=BACKENDS, key="backend"),
        Setting(ENV_TIMEOUT, float, DEFAULT_TIMEOUT, "seconds a power command may take", low=0.1, high=300.0,
                key="command_timeout"),
    ],
    routes=power_routes.routes,
)
