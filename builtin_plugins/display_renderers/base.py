"""What ``ticker.py`` imports from here, re-exported: the renderer contract (:mod:`hookspecs.render`)
and the config readers of the renderer kit (:mod:`svc_host.display.kit`). Nothing is defined
here; it goes when the ticker renderers join their types."""
from __future__ import annotations

from hookspecs.render import RenderContext, TickerContent, renderer  # noqa: F401  (re-exported)
from svc_host.display.kit import config_flag, config_list, config_number, config_strings, config_text  # noqa: F401
