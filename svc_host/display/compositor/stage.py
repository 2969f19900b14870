"""A layer as the compositor holds it (:class:`LayerEntry`) and the compositor as that layer sees
it (:class:`LayerStage`, the :class:`hookspecs.render.Stage` a layer is made with)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pony import orm

from hookspecs.render import Layout, Preferences, Rect, RenderContext
from svc_host.display.compositor.placement import type_scale
from svc_host.display.truth import TYPE_FIELDS

Loaded = tuple["LayerEntry", Any, "BaseException | None"]  # (layer, its state, or the error its load raised)


@dataclass
class LayerEntry:
    plugin: str
    spec: Any
    layer: Any = None
    stage: "LayerStage | None" = None
    state: Any = None
    failed: bool = False
    due_event: Any = None
    mounted: bool = False
    decorated: bool = False  # its decoration widget is mounted (under every layer's widget)


class LayerStage:
    """The :class:`hookspecs.render.Stage` of one layer: the compositor, seen from that layer."""

    def __init__(self, compositor: Any, entry: LayerEntry):  # the Compositor (core.py)
        self._compositor = compositor
        self._entry = entry
        self.host = compositor.host
        self.id = entry.spec.id

    @property
    def preferences(self) -> Preferences:
        return self._compositor.preferences

    @property
    def layout(self) -> Layout:
        return self._compositor.layout

    @property
    def area(self) -> Rect:
        return self._compositor.layout.area(self._entry.spec.area) or self._compositor.layout.content

    def context(self, kind: str, row: dict[str, Any], size: tuple[int, int] | None = None) -> RenderContext:
        area = self.area
        size = size or (int(area.width), int(area.height))
        type_id = str(row.get(TYPE_FIELDS.get(kind, ""), ""))
        type_height, reference = type_scale(self._compositor.layout, self._entry.spec.area, kind)
        return self.preferences.context(self.host, kind, type_id, row, size, type_height, reference,
                                        self._compositor.layout.portrait)

    def renderer(self, kind: str, type_id: str) -> Any:
        return self._compositor.renderer_for(kind, type_id)

    def prepare(self, renderer: Any, context: RenderContext) -> Any:
        """Loader thread: the renderer's ``prepare(context)`` in a ``db_session`` (``{}`` without one)."""
        step = getattr(renderer, "prepare", None)
        if step is None:
            return {}
        with orm.db_session:
            return step(context)

    def submit(self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        self._compositor.submit(job, self._guarded(done, "loader callback"))

    def report_failure(self, kind: str, type_id: str, row_id: Any, step: str, exc: BaseException) -> None:
        self._compositor.report_failure(kind, type_id, row_id, step, exc)

    def showable(self, kind: str, rows: Any) -> list[dict]:
        return self._compositor.truth.showable(self.id, kind, rows)

    def report_shown(self, kind: str, type_id: str, row_id: Any, whole: bool = False) -> None:
        self._compositor.truth.shown(kind, type_id, row_id, whole)

    def report_current(self, row: dict | None, since_ms: int | None = None) -> None:
        self._compositor.truth.showing(row, since_ms)

    def nothing_to_show(self) -> list[str]:
        return self._compositor.truth.explain()

    def reload(self) -> None:
        self._compositor.refresh([self.id])

    def relayout(self) -> None:
        self._compositor.relayout()

    def content_changed(self) -> None:
        self._compositor.content_changed()

    def after(self, seconds: float, callback: Callable[[], None]) -> Callable[[], None]:
        return self._compositor.after(seconds, self._guarded(lambda: callback(), "timer"))

    def _guarded(self, callback: Callable[..., Any], step: str) -> Callable[..., Any]:
        """``callback`` with its failure contained: the layer is removed, the canvas keeps running."""

        def run(*args: Any) -> None:
            if self._entry.failed:
                return
            try:
                callback(*args)
            except Exception as exc:  # noqa: BLE001  contained, named
                self._compositor.fail(self._entry, step, exc)

        return run
