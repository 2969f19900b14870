"""Renderer factories resolved on first use, so a headless host never imports Kivy.

The screen, ticker and overlay plugins declare their types (schemas) in ``types.py``;
the Kivy widgets that draw them live in ``builtin_plugins/display_renderers`` and are
only imported when the display asks for one.
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Iterable

RENDERER_MODULES = {
    "screen": "builtin_plugins.display_renderers.screens",
    "overlay": "builtin_plugins.display_renderers.overlays",
    "ticker": "builtin_plugins.display_renderers.ticker",
}


class LazyRenderer:
    """Stands in for ``RENDERERS[renderer_id]`` of a renderer module until first used."""

    def __init__(self, module: str, renderer_id: str):
        self.module = module
        self.renderer_id = renderer_id

    def target(self) -> Any:
        return importlib.import_module(self.module).RENDERERS[self.renderer_id]

    def __call__(self, context: Any) -> Any:
        return self.target()(context)

    def __getattr__(self, name: str) -> Any:  # ``prepare`` and other optional attributes
        if name.startswith("__") or name in ("module", "renderer_id"):
            raise AttributeError(name)
        return getattr(self.target(), name)

    def __repr__(self) -> str:
        return f"LazyRenderer({self.module}:{self.renderer_id})"


def with_renderers(kind: str, types: Iterable[Any]) -> list[Any]:
    """The type definitions with ``renderer`` set to the display's renderer of the same id."""
    module = RENDERER_MODULES[kind]
    return [dataclasses.replace(t, renderer=LazyRenderer(module, t.id)) for t in types]
