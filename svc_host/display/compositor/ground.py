"""The backdrop and the ground, the bottom of the composition (docs/display.md, "Composition: the
rule"): the theme **backdrop** (while no layer covers its area, ``opaque``; filled only where
nothing opaque lies over it; a one-colour bottom fill as a clear of the window) and the **ground**
(the background a layer's content is drawn on, ``Layer.background``: the slide's).

A mixin of :class:`svc_host.display.compositor.Compositor`: it keeps ``backdrop``, ``ground`` and
the theme the backdrop was made with on the compositor, and follows the layers' ``background``
and ``opaque`` on every content change (they change only with a layout or a layer's content, so
they are not checked per frame)."""
from __future__ import annotations

import math
from typing import Any

from hookspecs.render import Rect
from svc_host.display.compositor.masking import uncovered


class Grounds:
    """The compositor's backdrop and ground (see the module doc)."""

    backdrop: Any
    ground: Any
    _backdrop_theme: Any

    def _mount_backdrop(self, root: Any) -> None:
        """Make the theme backdrop at the bottom of ``root`` (:meth:`attach`)."""
        from svc_host.kit.display.backdrop import Backdrop

        self.backdrop = Backdrop(list(self.preferences.theme.background), size_hint=(None, None))
        self._backdrop_theme = self.preferences.theme
        root.add_widget(self.backdrop)

    def _follow_grounds(self) -> None:
        """The ground and the backdrop's cover follow the layers now (``content_changed``)."""
        if self.backdrop is not None and self.root is not None:
            self._lay_ground()
            self._cover_backdrop()

    def _restyle_backdrop(self) -> None:
        from svc_host.kit.display.backdrop import Backdrop

        theme = self.preferences.theme
        if theme != self._backdrop_theme:
            index = self.root.children.index(self.backdrop) if self.backdrop.parent is not None else None
            if index is not None:
                self.root.remove_widget(self.backdrop)
            self.backdrop = Backdrop(list(theme.background), size_hint=(None, None), pos=(0, 0),
                                     size=self.root.size)
            self._backdrop_theme = theme
            if index is not None:
                self.root.add_widget(self.backdrop, index=index)

    def _lay_ground(self) -> None:
        """Paint the background a layer's content is drawn on (``Layer.background``: the slide's)
        in its area, over the theme backdrop and under the decoration. The theme's own gradient is
        the backdrop already: one gradient across the screen, no seam where the slide area ends."""
        from svc_host.kit.display.backdrop import Backdrop

        colors, rect = None, None
        for entry in self.live():
            background = getattr(entry.layer, "background", None)
            if background:
                colors = tuple(tuple(c) for c in background)
                rect = self.layout.area(entry.spec.area) or self.layout.content
                break
        if colors == self.backdrop.colors and not self._opaque_cover():
            colors = None  # the backdrop shows it (it comes back in _cover_backdrop if the ground had it off)
        if self.ground is not None and (colors is None or colors != self.ground.colors):
            self.root.remove_widget(self.ground)
            self.ground = None
        if colors is None or rect is None:
            return
        if self.ground is None:
            self.ground = Backdrop(list(colors), size_hint=(None, None))
            bottom = len(self.root.children) - (1 if self.backdrop.parent is not None else 0)
            self.root.add_widget(self.ground, index=bottom)
        self.ground.pos, self.ground.size = rect.pos, rect.size

    def _opaque_cover(self) -> bool:
        """A layer that draws its own picture edge to edge (``opaque``) covers the content area."""
        layout = self.layout
        return any(getattr(entry.layer, "opaque", False) for entry in self.live()
                   if layout.area(entry.spec.area) in (layout.screen, layout.content))

    def _cover_backdrop(self) -> None:
        """Take the theme backdrop off while something opaque covers its area, put it back (at the
        bottom) when nothing does; called after :meth:`_lay_ground`, in the same frame."""
        layout = self.layout
        covered = self._opaque_cover()
        # the ground (a slide's own background) painted over the whole content area covers the
        # backdrop as an opaque slide does: without this both filled the screen on every frame
        # (issue 29: 26 ms of CPU a ticker frame on llvmpipe against 15 ms)
        ground = self.ground
        covered = covered or (ground is not None and ground.parent is not None
                              and all(len(c) < 4 or c[3] >= 1 for c in ground.colors)
                              and Rect(float(ground.x), float(ground.y), float(ground.width),
                                       float(ground.height)) in (layout.screen, layout.content))
        attached = self.backdrop.parent is not None
        # a full-screen fill under an opaque slide costs a frame's worth of fill rate on llvmpipe
        if covered and attached:
            self.root.remove_widget(self.backdrop)
        elif not covered and not attached:
            self.root.add_widget(self.backdrop, index=len(self.root.children))
        # the bottom-most fill, when it is one opaque colour, is a clear of the window rather than a
        # rectangle (Backdrop.clear_window): the backdrop (the whole screen) while it is attached, the
        # ground while it covers the backdrop (what it leaves is the ticker band, drawn over it)
        bottom = self.root.children[-1] if self.root.children else None
        self.backdrop.clear_window(bottom is self.backdrop)
        if ground is not None:
            ground.clear_window(covered and bottom is ground)
        if self.backdrop.parent is not None and not self.backdrop.clears:
            # a gradient is filled only where nothing opaque lies over it: not under the slide's
            # ground in the free area nor under an opaque layer (the ticker band)
            holes = self._opaque_over_backdrop()
            self.backdrop.show_only(uncovered(layout.screen, holes) if holes else None)

    def _opaque_over_backdrop(self) -> list[Rect]:
        """The window rectangles drawn opaque over the backdrop: the ground of opaque colours and
        the area of each shown layer that says it is ``opaque``; each to the whole pixels inside it,
        so the backdrop's pieces leave no seam."""
        layout, rects = self.layout, []
        ground = self.ground
        if ground is not None and ground.parent is not None and all(len(c) < 4 or c[3] >= 1 for c in ground.colors):
            rects.append(Rect(float(ground.x), float(ground.y), float(ground.width), float(ground.height)))
        for entry in self.live():
            if entry.mounted and getattr(entry.layer, "opaque", False) and entry.layer.widget.opacity >= 1:
                rects.append(layout.area(entry.spec.area) or layout.content)
        inside = [Rect(float(math.ceil(r.x)), float(math.ceil(r.y)), float(math.floor(r.right) - math.ceil(r.x)),
                       float(math.floor(r.top) - math.ceil(r.y))) for r in rects]
        return [r for r in inside if r.width > 0 and r.height > 0]

