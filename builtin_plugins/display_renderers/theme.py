"""Themes as the canvas uses them: colours from a theme preview (spec 2.11).

A preview is ``{display, primaryContainer, secondaryContainer, accents}``; ``display`` is
2-4 background stops, the container groups list the foreground first, ``accents`` has 4
colours. Builtin previews live with the themes plugin; :data:`FALLBACK_PREVIEWS` is what
the canvas uses when no themes service answers (the default id ``navy_coral`` first).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

RGBA = tuple[float, float, float, float]

FALLBACK_PREVIEWS: dict[str, dict[str, list[str]]] = {
    "navy_coral": {"display": ["#0b1d3a", "#14305c"], "primaryContainer": ["#ffffff", "#1d3b6e"],
                   "secondaryContainer": ["#1b1b1b", "#ff7f6e"], "accents": ["#ff7f6e", "#ffd166", "#06d6a0", "#4cc9f0"]},
    "midnight": {"display": ["#000000", "#101018"], "primaryContainer": ["#e0e0ff", "#20203a"],
                 "secondaryContainer": ["#000000", "#8888ff"], "accents": ["#8888ff", "#ff88cc", "#88ffcc", "#ffee88"]},
    "daylight": {"display": ["#f4f6fb", "#dfe7f5"], "primaryContainer": ["#0b1d3a", "#ffffff"],
                 "secondaryContainer": ["#ffffff", "#2a6df4"], "accents": ["#2a6df4", "#f45b69", "#2ec4b6", "#ff9f1c"]},
}


def parse_color(value: Any, default: RGBA = (1.0, 1.0, 1.0, 1.0)) -> RGBA:
    """``#rgb``, ``#rgba``, ``#rrggbb`` or ``#rrggbbaa`` -> RGBA floats; anything else -> ``default``."""
    if not isinstance(value, str):
        return default
    text = value.strip().lstrip("#")
    if len(text) in (3, 4):
        text = "".join(c * 2 for c in text)
    if len(text) not in (6, 8):
        return default
    try:
        parts = [int(text[i:i + 2], 16) / 255.0 for i in range(0, len(text), 2)]
    except ValueError:
        return default
    if len(parts) == 3:
        parts.append(1.0)
    return tuple(parts)  # type: ignore[return-value]


def parse_colors(values: Any, default: Sequence[RGBA]) -> list[RGBA]:
    if not isinstance(values, list):
        return list(default)
    parsed = [parse_color(v, None) for v in values if isinstance(v, str)]  # type: ignore[arg-type]
    parsed = [p for p in parsed if p is not None]
    return parsed or list(default)


@dataclass(frozen=True)
class Theme:
    id: str
    background: tuple[RGBA, ...]
    primary_fg: RGBA
    primary_bg: RGBA
    secondary_fg: RGBA
    secondary_bg: RGBA
    accents: tuple[RGBA, ...]

    @property
    def text(self) -> RGBA:
        return self.primary_fg


def theme_from_preview(theme_id: str, preview: Any) -> Theme:
    base = FALLBACK_PREVIEWS["navy_coral"]
    preview = preview if isinstance(preview, dict) else base

    def group(name: str) -> list[RGBA]:
        return parse_colors(preview.get(name), parse_colors(base[name], [(1, 1, 1, 1)]))

    display, primary, secondary, accents = group("display"), group("primaryContainer"), \
        group("secondaryContainer"), group("accents")
    return Theme(
        id=theme_id,
        background=tuple(display),
        primary_fg=primary[0],
        primary_bg=primary[1] if len(primary) > 1 else display[-1],
        secondary_fg=secondary[0],
        secondary_bg=secondary[1] if len(secondary) > 1 else primary[0],
        accents=tuple((accents * 4)[:4]),
    )


def resolve_theme(host: Any, theme_id: str | None) -> Theme:
    """The theme of ``theme_id``: a themes service, stored custom themes, then fallbacks."""
    theme_id = theme_id or "navy_coral"
    themes = host.services.get("themes") if host is not None else None
    if themes is not None and hasattr(themes, "preview"):
        try:
            preview = themes.preview(theme_id)
            if preview:
                return theme_from_preview(theme_id, preview)
        except Exception:  # a themes bug falls back to the builtin look
            pass
    settings = host.services.get("settings") if host is not None else None
    if settings is not None:
        for item in settings.get("display_custom_themes") or []:
            if isinstance(item, dict) and item.get("id") == theme_id:
                return theme_from_preview(theme_id, item.get("preview"))
    return theme_from_preview(theme_id, FALLBACK_PREVIEWS.get(theme_id, FALLBACK_PREVIEWS["navy_coral"]))
