"""The renderers of the builtin ticker types (not a plugin: no entry point), until they join
their types: ``ticker.RENDERERS`` maps a ticker type id to its renderer factory, which the
plugins that define the types attach (``common/lazy_renderer.py``). Screen and overlay types
draw in their own feature folder's ``display.py``, with the host's renderer kit
(``svc_host/display/kit.py``, ``svc_host/display/widgets.py``).
"""

# Builtin packages this one imports (besides the shared kit `common`); tests/host/test_boundaries.py
# checks every cross-package import against it, and the host disables this plugin when one is off.
REQUIRES: tuple[str, ...] = ("ticker",)
