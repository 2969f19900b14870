"""Display themes (spec 2.11): the builtin set, custom themes, preview validation.

A preview is ``{display, primaryContainer, secondaryContainer, accents}``: the first three
are gradients of 2-4 hex colour stops (container groups list the foreground first),
``accents`` is exactly 4 hex colours. Hex colours are ``#RGB``, ``#RRGGBB`` or
``#RRGGBBAA``. Custom themes live in the setting ``display_custom_themes`` (at most
:data:`MAX_CUSTOM_THEMES`); their ids are ``custom_<12 hex>``.
"""
from __future__ import annotations

import re
import uuid
from typing import Any

from hookspecs.render import DEFAULT_THEME_ID, DEFAULT_THEME_PREVIEW

CUSTOM_THEMES_KEY = "display_custom_themes"
THEME_KEY_VALUE = "display.theme.id"
MAX_CUSTOM_THEMES = 20
LABEL_MAX = 80
GROUPS = ("display", "primaryContainer", "secondaryContainer")
HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _theme(label: str, display: list[str], primary: list[str], secondary: list[str],
           accents: list[str]) -> dict[str, Any]:
    return {"label": label, "preview": {"display": display, "primaryContainer": primary,
                                        "secondaryContainer": secondary, "accents": accents}}


BUILTIN_THEMES: dict[str, dict[str, Any]] = {
    DEFAULT_THEME_ID: {"label": "Navy & coral", "preview": DEFAULT_THEME_PREVIEW},
    "midnight_teal": _theme("Midnight teal", ["#020c1b", "#0a2a43"], ["#e0f7fa", "#00897b"],
                            ["#004d40", "#b2dfdb"], ["#26a69a", "#80cbc4", "#ffca28", "#ef5350"]),
    "forest_amber": _theme("Forest & amber", ["#10261a", "#1f4d2c", "#2e7d32"], ["#fff8e1", "#ff8f00"],
                           ["#1b5e20", "#c8e6c9"], ["#ffb300", "#8bc34a", "#4db6ac", "#e57373"]),
    "slate_citrus": _theme("Slate & citrus", ["#1e272e", "#485460"], ["#1e272e", "#d2f55c"],
                           ["#ffffff", "#808e9b"], ["#d2f55c", "#ffa801", "#0fbcf9", "#ff5e57"]),
    "plum_gold": _theme("Plum & gold", ["#2a0f2f", "#4a1a52", "#6d2877"], ["#2a0f2f", "#f5c542"],
                        ["#fce4ec", "#8e3a9d"], ["#f5c542", "#f48fb1", "#ce93d8", "#80deea"]),
    "high_contrast": _theme("High contrast", ["#000000", "#000000"], ["#000000", "#ffffff"],
                            ["#ffffff", "#000000"], ["#ffff00", "#00ffff", "#ff00ff", "#00ff00"]),
}


def preview_problems(preview: Any) -> dict[str, str]:
    """JSON pointer -> message for every way ``preview`` is malformed (empty when valid)."""
    if not isinstance(preview, dict):
        return {"/": "must be an object with display, primaryContainer, secondaryContainer and accents"}
    problems: dict[str, str] = {}
    for key in preview:
        if key not in (*GROUPS, "accents"):
            problems[f"/{str(key)[:40]}"] = "unknown key"
    for key in (*GROUPS, "accents"):
        stops = preview.get(key)
        low, high = (4, 4) if key == "accents" else (2, 4)
        if not isinstance(stops, list) or not low <= len(stops) <= high:
            problems[f"/{key}"] = ("must be an array of exactly 4 hex colours" if key == "accents"
                                   else "must be an array of 2-4 hex colour stops")
            continue
        for index, stop in enumerate(stops):
            if not isinstance(stop, str) or not HEX.match(stop):
                problems[f"/{key}/{index}"] = "must be a hex colour like #1a2b3c"
    return problems


def custom_themes(settings: Any) -> list[dict[str, Any]]:
    value = settings.get(CUSTOM_THEMES_KEY)
    return [dict(t) for t in value] if isinstance(value, list) else []


def all_themes(settings: Any) -> list[dict[str, Any]]:
    """Builtin themes first (in their fixed order), then custom ones in creation order."""
    items = [{"id": theme_id, **theme, "builtin": True} for theme_id, theme in BUILTIN_THEMES.items()]
    items += [{**theme, "builtin": False} for theme in custom_themes(settings)]
    return items


def theme_exists(settings: Any, theme_id: Any) -> bool:
    return theme_id in BUILTIN_THEMES or any(t["id"] == theme_id for t in custom_themes(settings))


def new_theme_id() -> str:
    return "custom_" + uuid.uuid4().hex[:12]


class ThemesService:
    """``host.services["themes"]``: the preview of a builtin or custom theme, for the display."""

    def __init__(self, settings: Any):
        self.settings = settings

    def preview(self, theme_id: str) -> dict[str, Any] | None:
        if theme_id in BUILTIN_THEMES:
            return BUILTIN_THEMES[theme_id]["preview"]
        for theme in custom_themes(self.settings):
            if theme.get("id") == theme_id:
                return theme.get("preview")
        return None
