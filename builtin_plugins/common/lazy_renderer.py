"""Renderer references for the builtin ticker types.

The screen and overlay types name their renderers in their own feature folder's display
module. The ticker types' renderers still live in ``builtin_plugins/display_renderers/ticker.py``;
each ticker type is given its renderer as a ``"module:RENDERERS.<type id>"`` reference, which
the host checks at startup (the module exists) and resolves when a canvas starts (so a
headless host never imports Kivy), naming the plugin at fault (``svc_host.plugins``).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable

RENDERER_MODULES = {
    "ticker": "builtin_plugins.display_renderers.ticker",
}


def with_renderers(kind: str, types: Iterable[Any]) -> list[Any]:
    """The type definitions with ``renderer`` set to the reference of the display's renderer."""
    module = RENDERER_MODULES[kind]
    return [dataclasses.replace(t, renderer=f"{module}:RENDERERS.{t.id}") for t in types]
