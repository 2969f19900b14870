"""Display settings (spec 2.11) as services other plugins read.

- ``host.services[SETTINGS]``: the store (adoption reads its allowed roles, others their key-values);
- ``host.services[THEMES]``: theme previews;
- ``host.services[DISPLAY_PREFERENCES]``: theme, text scales, time format, date order, time
  zone and temperature unit as one ``Preferences`` (:mod:`.preferences`), what the canvas,
  its layers, the renderers and the ticker's REST snapshot format with.

Routes for settings, themes and key-values are added on top of this store; every write
publishes the change event ``settings``.
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.settings.preferences import DisplayPreferencesService
from builtin_plugins.settings.themes import ThemesService
from hookspecs import Feature, Permission, hookimpl
from hookspecs.permissions import ADOPTION_ADMIN, OPERATORS, declare
from hookspecs.services import DISPLAY_PREFERENCES, SETTINGS, THEMES
from builtin_plugins.settings.store import SETTINGS_WRITE, SettingsService, define_entities


@hookimpl(tryfirst=True)
def startup(host: Any) -> None:
    settings = host.services[SETTINGS] = SettingsService(host)
    themes = host.services[THEMES] = ThemesService(settings)
    host.services[DISPLAY_PREFERENCES] = DisplayPreferencesService(settings, themes)


FEATURE = Feature(
    permissions=[Permission(SETTINGS_WRITE, "change display settings, themes and key-values", OPERATORS),
                 *declare(ADOPTION_ADMIN)],
    entities=define_entities,
    routes="builtin_plugins.settings.routes:routes",
)
