"""``"module:attr"`` references (a renderer, a layer factory): checked at load without importing
the module (a headless host never imports a renderer module: they import Kivy), resolved when a
canvas starts."""
from __future__ import annotations

import importlib
import importlib.util
import re
from typing import Any, Mapping


_REFERENCE = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<attr>[\w.]+)$")


def check_reference(value: str, what: str = "renderer") -> str:
    """Check a ``"module:attr"`` reference (a renderer, a layer) without importing it; return an
    error or ''.

    Only the module is looked up (``importlib.util.find_spec``), so a headless host never
    imports a renderer or layer module (they import Kivy); :func:`resolve_reference` imports it.
    """
    match = _REFERENCE.match(value)
    if match is None:
        return f"{what} {value!r} must be a callable or a 'module:attr' string"
    try:
        found = importlib.util.find_spec(match["module"]) is not None
    except (ImportError, ValueError) as exc:
        return f"{what} module of {value!r} cannot be found: {exc}"
    return "" if found else f"{what} module of {value!r} does not exist"


def resolve_reference(value: Any, what: str = "renderer") -> Any:
    """A renderer or layer factory: the callable itself, or what ``"module:attr"`` names (``attr``
    may be dotted; a mapping on the way is indexed by the next part, e.g.
    ``"pkg.screens:RENDERERS.clock"``)."""
    if not isinstance(value, str):
        return value
    match = _REFERENCE.match(value)
    if match is None:
        raise ValueError(f"{what} {value!r} must be a callable or a 'module:attr' string")
    target: Any = importlib.import_module(match["module"])
    for part in match["attr"].split("."):
        target = target[part] if isinstance(target, Mapping) else getattr(target, part)
    if not callable(target):
        raise TypeError(f"{what} {value!r} is a {type(target).__name__}, not callable")
    return target
