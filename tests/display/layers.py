"""The real compositor and layers of an in-process host, without a window: for tests of what
the layers load (a layer's ``load`` asks its owners' services; only ``apply`` needs Kivy)."""
from __future__ import annotations

from typing import Any

from svc_host.display.compositor import Compositor


def compositor(host: Any) -> Compositor:
    made = Compositor(host)
    made.create_layers()
    return made


def layer(host: Any, layer_id: str) -> Any:
    """The layer ``layer_id`` of ``host``'s canvas, made with its real stage."""
    entry = compositor(host).entry(layer_id)
    assert entry is not None, f"no display layer {layer_id!r}"
    return entry.layer


def shown(host: Any, layer_id: str) -> Any:
    """What the layer would draw now: its ``load()``."""
    return layer(host, layer_id).load()


def renderer(host: Any, kind: str, type_id: str) -> Any:
    """The renderer of the ``kind`` (``screen``, ``overlay``) type ``type_id``, resolved
    through ``host``'s registry as a canvas resolves it."""
    found = getattr(host.registries, f"{kind}_types").renderer(type_id)
    assert found is not None, f"{kind} type {type_id!r} has no renderer"
    return found


def prepare(host: Any, kind: str, type_id: str, row: dict, **context: Any) -> Any:
    """What the renderer's ``prepare`` step (loader thread, in a ``db_session``) gives for ``row``
    (``{}`` for a renderer without one)."""
    from pony import orm

    from hookspecs.render import RenderContext

    factory = renderer(host, kind, type_id)
    with orm.db_session:
        made = RenderContext(host, kind, type_id, row, **context)
        return factory.prepare(made) if getattr(factory, "prepare", None) else {}


def tape_items(host: Any, type_id: str, config: dict, refresh: bool = False) -> Any:
    """The texts the marquee shows for a tape of ``type_id`` with ``config``: its loader-thread
    job, which builds them with the type's ``build_items`` (with ``refresh``: also the type's
    ``refresh_seconds``, as a pair)."""
    tape = {"id": "t", "ticker_type": type_id, "enabled": True, "frequency_weight": 1, "config_json": config}
    ((_, context, error),) = layer(host, "marquee")._content_job([tape])()
    if error is not None:
        raise error
    return (context.data.items, context.data.refresh_seconds) if refresh else context.data.items
