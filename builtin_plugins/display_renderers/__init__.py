"""Renderers of the builtin screen, overlay and ticker types (not a plugin: no entry point).

``screens.RENDERERS``, ``overlays.RENDERERS`` and ``ticker.RENDERERS`` map a builtin type
id to its renderer factory; the plugins that define the types attach them
(``renderer=RENDERERS.get(type_id)``). The factory interface is in :mod:`.base`.
"""
