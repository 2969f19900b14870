"""Icons: Material Symbols (the font shipped in ``fonts/``). :func:`icon_text` and :func:`has_icon`
need no Kivy; :func:`icon` (a label in the font) imports it when called."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kivy.uix.label import Label

RGBA = tuple[float, float, float, float]


FONTS = Path(__file__).parent / "fonts"
SYMBOLS_FONT = FONTS / "MaterialSymbolsOutlined.ttf"
"""Material Symbols Outlined (Apache-2.0, ``fonts/README.md`` says how it was made): every icon a
builtin slide draws (weather, ticks and boxes, warnings, arrows)."""
SYMBOLS_FONT_NAME = "MaterialSymbols"
"""The name :func:`icon` registers :data:`SYMBOLS_FONT` under with Kivy."""


@functools.lru_cache(maxsize=1)
def _codepoints() -> dict[str, int]:
    names = {}
    for line in SYMBOLS_FONT.with_suffix(".codepoints").read_text(encoding="ascii").splitlines():
        name, _, point = line.partition(" ")
        if name[:1] == "_" and name[1:2].isdigit():  # a glyph name cannot start with a digit
            name = name[1:]
        names[name] = int(point, 16)
    return names


def icon_text(name: str) -> str:
    """The character of the Material Symbols icon ``name`` (``sunny``, ``check_circle``); raises
    ``KeyError`` naming an unknown one."""
    try:
        return chr(_codepoints()[name])
    except KeyError:
        raise KeyError(f"no Material Symbols icon named {name!r}") from None


def has_icon(name: object) -> bool:
    return isinstance(name, str) and name in _codepoints()


def register_symbols() -> str:
    """Registers :data:`SYMBOLS_FONT` with Kivy (once); returns its name."""
    from kivy.core.text import LabelBase

    if SYMBOLS_FONT_NAME not in LabelBase._fonts:  # noqa: SLF001  Kivy keeps no other registry
        LabelBase.register(SYMBOLS_FONT_NAME, str(SYMBOLS_FONT))
    return SYMBOLS_FONT_NAME


def icon(name: str, font_size: float, color: RGBA, **kwargs: Any) -> Label:
    """The Material Symbols icon ``name`` (``sunny``, ``check_circle``...) as a label in the shipped
    font (``icon_name`` remembers which); raises ``KeyError`` for an unknown name."""
    from kivy.uix.label import Label

    widget = Label(text=icon_text(name), font_name=register_symbols(), font_size=font_size, color=color,
                   halign="center", valign="middle", **kwargs)
    widget.icon_name = name
    return widget
