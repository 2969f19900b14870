"""The integrations engine (spec 2.7, 4.12, 4.8): rows, schedule, secrets, telemetry, routes.

Collectors are other plugins contributing :class:`hookspecs.IntegrationType` objects with
a ``collect(context)`` callable (see :class:`engine.CollectorContext`). This plugin:

- creates one disabled integration row per registered type at startup;
- runs enabled ones on a schedule, each run isolated with a timeout, failures backed off;
- keeps provider secrets Fernet-encrypted (key in the OS keyring or a 0600 key file);
- keeps an in-process telemetry ring buffer;
- serves ``/v1/integrations``, ``/v1/integrations/{id}``, ``/v1/integrations/{id}/run``
  and ``/v1/telemetry/integrations``.

Services: ``host.services[INTEGRATIONS]`` (the :class:`engine.Engine`) and
``host.services[INTEGRATION_TELEMETRY]`` (the ring buffer).

The scheduler starts only in a host that serves HTTP (``svc-display serve`` and the
in-process test hosts, both built with routes) and never in SaaS mode; other commands
(``migrate``, ``keys create``) build a host without routes and run no collector.
"""

from __future__ import annotations

from typing import Any

from hookspecs import Feature, Permission, Setting, hookimpl
from hookspecs.permissions import INTEGRATIONS_READ, OPERATORS, TELEMETRY_READ, declare
from builtin_plugins.integrations.accounts import AccountStore
from builtin_plugins.integrations.engine import Engine
from builtin_plugins.integrations.models import define_entities
from builtin_plugins.integrations.routes import INTEGRATIONS_WRITE, routes
from hookspecs.services import ACCOUNTS, INTEGRATIONS, INTEGRATION_TELEMETRY


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    engine = Engine(host)
    host.services[INTEGRATIONS] = engine
    host.services[INTEGRATION_TELEMETRY] = engine.telemetry
    host.services[ACCOUNTS] = AccountStore(engine)
    engine.ensure_rows()
    if host.routes and not host.settings.saas_mode:
        engine.start()


FEATURE = Feature(
    stops=[INTEGRATIONS],
    permissions=[Permission(INTEGRATIONS_WRITE, "configure integrations and their secrets", OPERATORS),
                 *declare(INTEGRATIONS_READ, TELEMETRY_READ)],
    settings=[
        Setting("SVC_DISPLAY_GOOGLE_CLIENT_ID", str, None, "OAuth client id for Google accounts"),
        Setting("SVC_DISPLAY_MICROSOFT_CLIENT_ID", str, None, "OAuth client id for Microsoft accounts"),
    ],
    entities=define_entities,
    routes=routes,
)
