"""Display themes (spec 2.11): the builtin set, custom themes, preview validation.

A preview is ``{display, primaryContainer, secondaryContainer, accents}``: the first three
are gradients of 2-4 hex colour stops (container groups list the foreground first),
``accents`` is exactly 4 hex colours; an optional ``transition`` (``fade``, the default, or
``push``) says how a slide gives way to the next (Slate & citrus pushes). Hex colours are ``#RGB``, ``#RRGGBB`` or
``#RRGGBBAA``. Custom themes live in the setting ``display_custom_themes`` (at most
:data:`MAX_CUSTOM_THEMES`); their ids are ``custom_<12 hex>``.

The colour rules (docs/display.md, "Colour"): every colour a renderer may draw text in must read
on the background it is drawn on, at least :data:`svc_host.kit.contrast.MIN_TEXT` (4.5:1, WCAG 2.x):
:data:`TEXT_PAIRS` lists those pairs and :func:`contrast_problems` checks them; a preview that
fails one is refused like a malformed one. The builtin themes pass (a test checks).
"""
from __future__ import annotations

import re
import uuid
from typing import Any

from svc_host.kit.contrast import BLACK, MIN_TEXT, PANEL_ALPHA, WHITE, composite, contrast_ratio
from hookspecs.render import DEFAULT_THEME_ID, DEFAULT_THEME_PREVIEW, parse_color

CUSTOM_THEMES_KEY = "display_custom_themes"
THEME_KEY_VALUE = "display.theme.id"
MAX_CUSTOM_THEMES = 20
LABEL_MAX = 80
GROUPS = ("display", "primaryContainer", "secondaryContainer")
TRANSITIONS = ("fade", "push")  # a preview's optional "transition" (hookspecs.render.Theme.transition)
HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_STOPS = {"type": "array", "minItems": 2, "maxItems": 4, "items": {"type": "string", "pattern": HEX.pattern}}
# A preview's shape for /v1/openapi.json: what preview_problems() checks (the contrast rule aside).
PREVIEW_JSON_SCHEMA = {
    "type": "object", "required": [*GROUPS, "accents"], "additionalProperties": False,
    "description": "gradients of 2-4 hex stops (container groups list the foreground first) and 4 accents; "
                   "the text colours must read on their backgrounds (docs/display.md, Colour)",
    "properties": {**{group: _STOPS for group in GROUPS},
                   "accents": {**_STOPS, "minItems": 4, "maxItems": 4},
                   "transition": {"type": "string", "enum": list(TRANSITIONS),
                                  "description": "how a slide gives way to the next: fade (default) or push"}},
}


def _theme(label: str, display: list[str], primary: list[str], secondary: list[str],
           accents: list[str], transition: str | None = None) -> dict[str, Any]:
    preview = {"display": display, "primaryContainer": primary, "secondaryContainer": secondary, "accents": accents}
    return {"label": label, "preview": {**preview, "transition": transition} if transition else preview}


BUILTIN_THEMES: dict[str, dict[str, Any]] = {
    DEFAULT_THEME_ID: {"label": "Navy & coral", "preview": DEFAULT_THEME_PREVIEW},
    "midnight_teal": _theme("Midnight teal", ["#020c1b", "#0a2a43"], ["#e0f7fa", "#00695c"],
                            ["#004d40", "#b2dfdb"], ["#26a69a", "#80cbc4", "#ffca28", "#ef5350"]),
    "forest_amber": _theme("Forest & amber", ["#10261a", "#1a4026", "#1f5128"], ["#fff8e1", "#7a4300"],
                           ["#1b5e20", "#c8e6c9"], ["#ffc233", "#a5d66b", "#6fd3c8", "#e57373"]),
    "slate_citrus": _theme("Slate & citrus", ["#1e272e", "#3d4852"], ["#f5f6fa", "#2b353e"],
                           ["#1e272e", "#d2f55c"], ["#d2f55c", "#ffb833", "#4fd0ff", "#ff5e57"], "push"),
    "plum_gold": _theme("Plum & gold", ["#2a0f2f", "#4a1a52", "#5e2267"], ["#fff8e7", "#3b1442"],
                        ["#fce4ec", "#8e3a9d"], ["#f5c542", "#f8a5c2", "#e1b3ea", "#80deea"]),
    "high_contrast": _theme("High contrast", ["#000000", "#000000"], ["#ffffff", "#1a1a1a"],
                            ["#ffffff", "#000000"], ["#ffff00", "#00ffff", "#ff66ff", "#00ff00"]),
}


def preview_problems(preview: Any) -> dict[str, str]:
    """JSON pointer -> message for every way ``preview`` is malformed (empty when valid)."""
    if not isinstance(preview, dict):
        return {"/": "must be an object with display, primaryContainer, secondaryContainer and accents"}
    problems: dict[str, str] = {}
    for key in preview:
        if key not in (*GROUPS, "accents", "transition"):
            problems[f"/{str(key)[:40]}"] = "unknown key"
    if "transition" in preview and preview["transition"] not in TRANSITIONS:
        problems["/transition"] = "must be one of " + ", ".join(TRANSITIONS)
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


TEXT_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("/primaryContainer/0", "/display", "slide text on the slide background"),
    ("/accents/0", "/display", "accent text (subtitles, punchlines, dates) on the slide background"),
    ("/accents/1", "/display", "accent text (weekday names, details) on the slide background"),
    ("/accents/2", "/display", "accent text (marked days) on the slide background"),
    ("/primaryContainer/0", "/primaryContainer/1", "text in boxes (forecast days) on the box fill"),
    ("/primaryContainer/0", "panel", "overlay panel text on the panel fill over any slide"),
    ("/secondaryContainer/0", "/secondaryContainer/1", "ticker text on the ticker band"),
)
"""(text colour, background, what draws it): every pair must reach :data:`MIN_TEXT`. ``/display``
is the slide background gradient (each stop and the colours between); ``panel`` is the primary
container fill at :data:`svc_host.kit.contrast.PANEL_ALPHA` over black and over white. The fourth
accent is decoration only (confetti, markers): never text."""


def _at(preview: dict, pointer: str) -> str:
    group, index = pointer.strip("/").split("/")
    return preview[group][int(index)]


def _gradient(stops: list) -> list[tuple[str, tuple]]:
    """(label, opaque colour) of each stop and of points between them (a gradient over black)."""
    colours = [composite(parse_color(stop), BLACK) for stop in stops]
    samples = [("/display/0", colours[0])]
    for i in range(1, len(colours)):
        a, b = colours[i - 1], colours[i]
        samples += [(f"/display between {i - 1} and {i}", tuple(a[c] + (b[c] - a[c]) * k / 4 for c in range(3)) + (1.0,))
                    for k in (1, 2, 3)]
        samples.append((f"/display/{i}", b))
    return samples


def _backgrounds(preview: dict, pointer: str) -> list[tuple[str, str, tuple]]:
    """(label, hex, opaque colour) of each background ``pointer`` stands for."""
    if pointer == "/display":
        return [(label, "#%02x%02x%02x" % tuple(round(c * 255) for c in colour[:3]), colour)
                for label, colour in _gradient(preview["display"])]
    if pointer == "panel":
        fill = _at(preview, "/primaryContainer/1")
        return [(f"/primaryContainer/1 panel over {name}", fill, composite(parse_color(fill), under, PANEL_ALPHA))
                for name, under in (("black", BLACK), ("white", WHITE))]
    stop = _at(preview, pointer)
    return [(pointer, stop, composite(parse_color(stop), BLACK))]


def contrast_problems(preview: dict) -> dict[str, list[str]]:
    """JSON pointer of a text colour -> the pairs of :data:`TEXT_PAIRS` it fails (empty when all
    pass). ``preview`` must be well formed (:func:`preview_problems` empty)."""
    problems: dict[str, list[str]] = {}
    for text_pointer, bg_pointer, what in TEXT_PAIRS:
        text_hex = _at(preview, text_pointer)
        for label, bg_hex, bg in _backgrounds(preview, bg_pointer):
            text = composite(parse_color(text_hex), bg)
            ratio = contrast_ratio(text, bg)
            if ratio < MIN_TEXT:
                problems.setdefault(text_pointer, []).append(
                    f"{text_pointer} {text_hex} on {label} {bg_hex}: contrast {ratio:.2f}:1, needs at least "
                    f"{MIN_TEXT}:1 ({what})")
                break  # one failing background per pair is enough to name it
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
    """``host.services[THEMES]``: the preview of a builtin or custom theme, for the display."""

    def __init__(self, settings: Any):
        self.settings = settings

    def builtin_ids(self) -> list[str]:
        return list(BUILTIN_THEMES)

    def preview(self, theme_id: str) -> dict[str, Any] | None:
        if theme_id in BUILTIN_THEMES:
            return BUILTIN_THEMES[theme_id]["preview"]
        for theme in custom_themes(self.settings):
            if theme.get("id") == theme_id:
                return theme.get("preview")
        return None
