"""The compositor: the canvas as a stack of the layers plugins contribute.

It knows no feature by name. At canvas start it makes every layer of
``register_display_layers`` (bottom to top by ``z``) with a :class:`LayerStage`, puts each
layer's widget in the rectangle its spec names (:class:`hookspecs.render.Layout`) and then:

- **loads** layers on its one loader thread (a layer asks its owners' services there,
  never the UI thread) and **applies** what they loaded on the UI thread, together with the
  display preferences (``svc_host.kit.services.preferences``): when those change, every layer
  is loaded again and applied with ``restyle=True``;
- reloads a layer when a **change event** it follows (``LayerSpec.topics``) is published
  on the host's :class:`~svc_host.events.ChangeBus`, when the time its state says it goes
  stale (``Layer.due_ms``) comes, and every ``SVC_DISPLAY_REFRESH_SECONDS`` (default 10)
  as a slow safety net;
- **ticks** every layer each frame and runs the layers' timers (``Stage.after``) on the
  frame time (the sum of the frames' ``dt``), and routes **navigation** to the layer of
  the surface;
- **contains** a layer that raises in apply, tick or navigation: logged with the plugin that
  contributed it, its widget removed and disposed, the others keep drawing. A failed load
  is logged and the layer keeps what it shows until the next load;
- **composes** the canvas by one rule (docs/display.md, "Composition: the rule"): bottom to top
  the theme **backdrop** (while no layer covers its area, ``opaque``; filled only where nothing
  opaque lies over it, a one-colour bottom fill as a clear of the window) and the **ground** (the
  background a layer's content is drawn on, ``Layer.background``: the slide's), the layers'
  **decoration** (``Layer.decoration``: confetti, rain, frames), then every layer's widget by
  ``z`` (slide content, overlay panels, alerts, the ticker): decoration never covers what a
  viewer reads;
- **lays out** the screen (:class:`hookspecs.render.Layout`): the ticker band the layers claim,
  the zones the layers' ``arrange`` say they occupy and the ``free`` area they leave for the
  slides, again when the window resizes or a layer asks (``Stage.relayout``: an overlay came or
  went), never per frame.

For the renderers the layers use, it resolves a type's renderer, runs its ``prepare`` in a
``db_session`` and hands a renderer's failure to its :class:`~svc_host.display.truth.ScreenTruth`
(``truth``): the one owner of "skip, don't blank" (which rows a layer may show, the failure record
and its back-off, ``GET /v1/display/screen``'s report), published as ``host.services[SCREEN_REPORT]``.

One module per concern, read top-down:

- :mod:`.core`: :class:`Compositor` (building the stack, z-order, lifecycle, frames, navigation,
  containment of a failing layer, the types' renderers);
- :mod:`.stage`: :class:`LayerEntry` (a layer as the compositor holds it) and :class:`LayerStage`
  (the compositor as that layer sees it);
- :mod:`.loading`: the loader thread, the due reloads and the timers on frame time;
- :mod:`.placement`: the layout from the layers' claims and zones, each widget in its area (the
  alert band's full-screen wait), the type scale of a renderer context: a rule about *where* a
  layer draws or *how large* its type is goes there;
- :mod:`.ground`: the theme backdrop and a layer's ground, and when they are covered;
- :mod:`.masking`: decoration kept off every content box;
- :mod:`.voice`: the one-voice rule.

Kivy is imported lazily: a compositor can be made and its layers loaded without a window
(the one-owner tests do), only :meth:`Compositor.attach` needs one.
"""
from __future__ import annotations

from svc_host.display.compositor.core import TYPES_FILE, Compositor
from svc_host.display.compositor.loading import MAX_DUE_SECONDS
from svc_host.display.compositor.masking import CONTENT_WIDGETS, DecorationMask, content_boxes, uncovered
from svc_host.display.compositor.stage import LayerEntry, LayerStage, Loaded
from svc_host.display.compositor.voice import voices
from svc_host.display.truth import TYPE_FIELDS

__all__ = ["CONTENT_WIDGETS", "MAX_DUE_SECONDS", "TYPES_FILE", "TYPE_FIELDS", "Compositor", "DecorationMask",
           "LayerEntry", "LayerStage", "Loaded", "content_boxes", "uncovered", "voices"]
