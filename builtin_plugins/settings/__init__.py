"""Display settings (spec 2.11) as a service other plugins read: ``host.services["settings"]``.

Routes for settings, themes and key-values are added on top of this store; the store
itself is what adoption (allowed roles), the ticker (time formats, timezone) and the
display (theme, text scales) read.
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.settings.themes import ThemesService
from hookspecs import hookimpl
from builtin_plugins.settings.store import SettingsService, define_entities


@hookimpl
def register_entities(db: Any) -> None:
    define_entities(db)


@hookimpl
def register_routes(host: Any) -> list:
    from builtin_plugins.settings.routes import routes

    return routes(host)


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    host.services["settings"] = SettingsService(host)
    host.services["themes"] = ThemesService(host.services["settings"])
