"""The text rule on the driven canvas (:mod:`tests.display.driven`): scenarios run by reference
(``"tests.display.text_rule:slide_texts"``) in the canvas's child process.

- :func:`kit_texts`: the kit's text widgets alone (a :class:`~svc_host.kit.display.text.TextBox`, a
  one-line ``fit_label``, a :class:`~svc_host.kit.display.column.Column`), each in a box of the job's;
- :func:`slide_texts`: builtin slide types (the sample content of ``svc-display gallery`` and
  :data:`LONG` texts stored here) drawn in boxes as the slides layer draws them: in the free area
  corner overlays leave (the type scale of the whole screen, the size of the box).

Both answer, per case, every label drawn (:func:`labels`): its text, the words of each line Kivy
laid out, its font size and minimum, its box and its texture's size, so the test judges what a
person reads: every word whole on its line, the text inside its box, never below its minimum.
"""
from __future__ import annotations

import math

from typing import Any

from tests.display.driven import Canvas, window_rect

LONG = {
    "headlines": ["Regional council approves the new tram line through the old harbour district after years of debate",
                  "Aurora Community Café wins the national barista championship with a honey-lavender flat white",
                  "Night trains return to three northern routes",
                  "Spring market moves to the old harbour",
                  "Library extends its weekend opening hours until midnight",
                  "Students build a robot that sorts recycling in under two seconds"],
    "summary": ("After three rounds of tasting, the judges named the team from the Aurora Community Café the "
                "winners of this year's regional round with a honey-lavender flat white."),
    "title": "Welcome to the Aurora Community Café and Co-working Lounge",
    "body": ("Lunch is served in the atrium from twelve until two, with a vegetarian option every day.\n"
             "Visitors please sign in at the front desk and collect a badge before going upstairs."),
}
"""Realistic lengths: a long headline, a summary of about 200 characters, a long welcome."""


def seed_long_news(host: Any) -> None:
    from pony import orm

    now = host.clock.now_ms()
    with orm.db_session:
        host.db.RssFeed(id="long-news", url="https://feeds.invalid/long", title="Aurora Gazette", category="local")
        for i, title in enumerate(LONG["headlines"]):
            host.db.RssArticle(id=f"long-{i}", feed_id="long-news", guid=f"long-{i}", title=title,
                               summary=LONG["summary"], link=f"https://news.invalid/{i}",
                               published_at_ms=now - (i + 1) * 600_000, created_at_ms=now)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def shown_labels(root: Any) -> list[Any]:
    """Every label under ``root`` showing text (its own opacity and its parents' above 0)."""
    from kivy.uix.label import Label

    found = []
    for widget in root.walk(restrict=True):
        if not isinstance(widget, Label) or not widget.text.strip():
            continue
        opacity, parent = widget.opacity, widget.parent
        while parent is not None and parent is not root.parent:
            opacity, parent = opacity * parent.opacity, parent.parent
        if opacity > 0:
            found.append(widget)
    return found


def labels(root: Any) -> list[dict]:
    """Every label under ``root`` showing text: what it says and how it is drawn."""
    found = []
    for widget in shown_labels(root):
        widget.texture_update()
        core = widget._label  # noqa: SLF001  the lines Kivy laid out are kept there only
        lines = [" ".join(word.text for word in line.words) for line in getattr(core, "_cached_lines", [])]
        scrolls = bool(getattr(widget, "scrolls", False))  # the kit's ScrollBox: drawn in a window of its box
        drawn = widget.window()[2:] if scrolls else widget.texture_size
        found.append({"text": widget.text, "lines": lines, "font_px": round(float(widget.font_size), 2),
                      "minimum": _number(getattr(widget, "minimum", None)), "role": getattr(widget, "role", ""),
                      "icon": bool(getattr(widget, "icon_name", "")), "rect": window_rect(widget),
                      "texture": [round(v, 1) for v in drawn], "fits": _flag(getattr(widget, "fits", None)),
                      "scrolls": scrolls, "whole_width": round(float(widget.texture_size[0]), 1),
                      "sized_by_text": widget.size_hint_y is None})
    return found


def pictures(root: Any) -> list[list[float]]:
    """Where every picture under ``root`` (an ``ImageFill``) is drawn: window ``[x, y, width, height]``."""
    from svc_host.kit.display.pictures import ImageFill

    drawn = []
    for widget in root.walk(restrict=True):
        if isinstance(widget, ImageFill) and widget.texture is not None:
            x, y = widget.to_window(*widget._rect.pos)  # noqa: SLF001  the rectangle it draws
            drawn.append([round(x, 1), round(y, 1), *(round(v, 1) for v in widget._rect.size)])  # noqa: SLF001
    return drawn


def _place(canvas: Canvas, widget: Any, size: list[int]) -> None:
    widget.size_hint, widget.pos_hint = (None, None), {}
    widget.pos, widget.size = (0, 0), tuple(size)
    canvas.root.add_widget(widget)


def _settle(canvas: Canvas, widget: Any) -> None:
    from kivy.clock import Clock

    canvas.settle()
    tick = getattr(widget, "tick", None)
    for _ in range(30 if tick is not None else 0):  # past any reveal (a punchline, an answer)
        tick(0.5)
    for _ in range(3):
        Clock.tick()
        canvas.settle()


def kit_texts(canvas: Canvas, job: dict) -> dict:
    from svc_host.kit import display as kit

    w = kit.widgets()

    answers = []
    for case in job["cases"]:
        size = case["box"]
        if case["kind"] == "column":
            entries = [w.Entry([w.label(text, case["font"], (1, 1, 1, 1), minimum=case["minimum"])])
                       for text in case["texts"]]
            widget = w.Column(entries, gap=case["font"] * 0.4)
            if case.get("first_fits_alone"):  # as tall as the first item at its minimum, and no taller
                first = entries[0]
                size = [size[0], math.ceil(first.height_at(size[0], first.least_scale())) + 1]
        elif case["kind"] == "line":
            widget = w.fit_label(case["text"], case["font"], (1, 1, 1, 1), minimum=case["minimum"])
        elif case["kind"] == "scroll":
            widget = w.ScrollBox(minimum=case["minimum"], max_lines=case["lines"], text=case["text"],
                                 font_size=case["font"], color=(1, 1, 1, 1))
        else:
            widget = w.label(case["text"], case["font"], (1, 1, 1, 1), minimum=case["minimum"])
        _place(canvas, widget, size)
        _settle(canvas, widget)
        answer = {"labels": labels(widget), "shown": getattr(widget, "shown", None), "box": size}
        if case["kind"] == "scroll":  # frame time passing: where its text is drawn from, frame by frame
            answer["travel"] = widget.travel()
            answer["offsets"] = []
            for _ in range(case.get("frames", 0)):
                widget.tick(0.25)
                answer["offsets"].append(widget.offset)
        answers.append(answer)
        canvas.root.remove_widget(widget)
    return {"cases": answers}


def slide_texts(canvas: Canvas, job: dict) -> dict:
    """Each of ``slides`` (``[type_id, config]``: the type's example config updated with it) in each
    of ``boxes`` (``[width, height]`` at the window's corner): its labels."""
    from pony import orm

    from svc_host.kit.services import preferences

    host = canvas.host
    seed_long_news(host)
    prefs = preferences(host)
    screen = canvas.root.size
    answers = []
    for type_id, config in job["slides"]:
        type_def = host.registries.screen_types.get(type_id)
        factory = host.registries.screen_types.renderer(type_id)
        for box in job["boxes"]:
            row = {"id": f"text_{type_id}", "screen_type": type_id, "enabled": True, "dwell_seconds": 20,
                   "frequency_weight": 1, "config_json": {**type_def.example_config, **config}}
            context = prefs.context(host, "screen", type_id, row, tuple(box), float(screen[1]))
            data: Any = {}
            if getattr(factory, "prepare", None) is not None:
                with orm.db_session:
                    data = factory.prepare(context)
            assert data is not None, f"{type_id}: no content"
            widget = factory(context.with_data(data))
            _place(canvas, widget, box)
            _settle(canvas, widget)
            if job.get("out"):
                canvas.png(f"{job['out']}/{type_id}-{box[0]}x{box[1]}.png")
            answers.append({"type": type_id, "box": box, "screen": list(screen),
                            "min_px": {step: context.min_px(step, min(screen)) for step in ("body", "title", "caption")},
                            "labels": labels(widget), "pictures": pictures(widget)})
            canvas.root.remove_widget(widget)
            dispose = getattr(widget, "dispose", None)
            if dispose is not None:
                dispose()
    for type_id, config in job.get("overlays", []):  # overlay panels at the size they ask, in a corner
        type_def = host.registries.overlay_types.get(type_id)
        row = {"id": f"text_{type_id}", "overlay_type": type_id, "enabled": True,
               "config_json": {**type_def.example_config, **config}}
        context = prefs.context(host, "overlay", type_id, row, tuple(screen), float(screen[1]))
        widget = host.registries.overlay_types.renderer(type_id)(context.with_data({}))
        box = [int(widget.size_hint[0] * screen[0]), int(widget.size_hint[1] * screen[1])]
        _place(canvas, widget, box)
        _settle(canvas, widget)
        answers.append({"type": type_id, "box": box, "screen": list(screen),
                        "min_px": {step: context.min_px(step, min(screen)) for step in ("body", "title", "caption")},
                        "labels": labels(widget)})
        canvas.root.remove_widget(widget)
    return {"slides": answers}


def seam(canvas: Canvas, job: dict) -> dict:
    """The compositor's theme backdrop over the window and a themed slide (the ``message`` type) in
    ``box`` (window ``[x, y, width, height]``) over it, as the slides layer draws one in the free
    area: the window's pixels of column ``x + width / 2``, bottom up (RGB)."""
    from pony import orm

    from hookspecs.services import THEMES, service
    from svc_host.kit.services import preferences
    from svc_host.kit.display.backdrop import Backdrop

    host = canvas.host
    themes = service(host, THEMES)
    prefs = preferences(host)
    import dataclasses

    from hookspecs.render import theme_from_preview

    prefs = dataclasses.replace(prefs, theme=theme_from_preview(job["theme"], themes.preview(job["theme"])))
    x, y, width, height = job["box"]
    backdrop = Backdrop(list(prefs.theme.background), size_hint=(None, None), pos=(0, 0), size=canvas.root.size)
    canvas.root.add_widget(backdrop)
    factory = host.registries.screen_types.renderer("message")
    row = {"id": "seam", "screen_type": "message", "config_json": {"title": "", "body": ""}}
    context = prefs.context(host, "screen", "message", row, (width, height), float(canvas.root.height))
    with orm.db_session:
        slide = factory(context.with_data({}))
    slide.size_hint, slide.pos, slide.size = (None, None), (x, y), (width, height)
    canvas.root.add_widget(slide)
    canvas.settle()
    data = canvas.pixels()
    window_width = int(canvas.root.width)
    column = x + width // 2
    return {"column": [list(data[(row * window_width + column) * 4:(row * window_width + column) * 4 + 3])
                       for row in range(int(canvas.root.height))]}


def _drawn_line(widget: Any) -> dict:
    """A one-line label as drawn: its text, lines, font size, box and the part of its text drawn (window
    pixels; a scrolling one's window of its box, else its texture centred in its box, as Kivy draws it)."""
    from tests.display.driven import window_rect

    widget.texture_update()
    core = widget._label  # noqa: SLF001  the lines Kivy laid out are kept there only
    tw, th = (float(v) for v in widget.texture_size)
    window = widget.window() if hasattr(widget, "window") else \
        (widget.center_x - tw / 2, widget.center_y - th / 2, tw, th)
    x, y = widget.to_window(window[0], window[1])
    return {"text": widget.text, "lines": [" ".join(w.text for w in line.words) for line in core._cached_lines],
            "font_px": round(float(widget.font_size), 2), "minimum": _number(getattr(widget, "minimum", None)),
            "rect": window_rect(widget), "drawn": [round(x, 1), round(y, 1), round(window[2], 1), round(window[3], 1)],
            "scrolls": bool(getattr(widget, "scrolls", False)), "travel": float(getattr(widget, "travel", lambda: 0)()),
            "offsets": []}


def narrow_lines(canvas: Canvas, job: dict) -> dict:
    """The one-line labels of the real layers: the ``overlays`` rows stored over REST (a panel in its
    corner of this screen), then a pairing request from ``identifier`` (the adoption card); each
    label's :func:`_drawn_line` and, over ``frames`` frames of ``dt`` s, the ``offset`` of each one
    that scrolls; the panels' and the card's window rectangles."""
    from kivy.uix.label import Label

    from tests.display.composition import api, overlay_row, store
    from tests.display.driven import window_rect

    client = api(canvas)
    for overlay_id, type_id, config in job["overlays"]:
        store(client, "POST", "/v1/display/overlays", overlay_row(overlay_id, type_id, config))
    answer = client.post("/v1/adoption/request", key="", json={"identifier": job["identifier"], "role": "viewer"})
    assert answer.status_code == 200, answer.text
    canvas.settle()
    for _ in range(4):
        canvas.frame(0.25)
    holders = [(overlay_id, entry["widget"]) for overlay_id, entry in canvas.layer("overlays").overlays.items()
               if entry.get("widget") is not None]
    holders += [("adoption", card) for card in canvas.layer("adoption").widget.children]
    seen: dict[str, Any] = {"holders": {}, "labels": []}
    watched = []
    for name, holder in holders:
        seen["holders"][name] = window_rect(holder)
        for widget in holder.walk(restrict=True):
            if isinstance(widget, Label) and widget.text.strip() and not getattr(widget, "icon_name", ""):
                watched.append((widget, {"holder": name, **_drawn_line(widget)}))
    for _ in range(job["frames"]):
        canvas.frame(job["dt"])
        for widget, item in watched:
            item["offsets"].append(float(getattr(widget, "offset", 0.0)))
    if job.get("png"):
        canvas.png(job["png"])
    seen["labels"] = [item for _widget, item in watched]
    return seen
