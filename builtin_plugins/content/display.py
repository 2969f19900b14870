"""The joke and trivia slides' drawing (Kivy-only, imported when a canvas starts). Content: a
random one of the newest unsuppressed ``Joke`` / ``TriviaQuestion`` rows of the category
``data_key`` or ``categoryId`` names. Config keys: those of ``builtin_plugins/content/types.json``."""
from __future__ import annotations

from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import (category_label, config_flag, config_number, data_key, icon_text, newest_shuffled,
                                  slide_title)
from svc_host.kit.display import widgets as _w


def _prepare_joke(context: RenderContext) -> Any:
    rows = newest_shuffled(context, context.host.db.Joke, "categoryId")
    if not rows:
        return None
    title = slide_title(context, category_label(context, data_key(context, "categoryId")), "Just for fun")
    return {"title": title, "setup": rows[0].setup, "punchline": rows[0].punchline}


class _Delayed:
    """Calls ``show`` once ``after`` seconds have passed."""

    def __init__(self, show: Any, after: float):
        self.show, self.after, self.t = show, after, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.after and self.show is not None:
            show, self.show = self.show, None
            show()


@renderer(prepare=_prepare_joke)
def joke(context: RenderContext) -> Any:
    """The setup, then the punchline (its place kept) after ``revealDelaySeconds`` (default: half the
    dwell), both large (the type scale's title) and centred in the slide below its title; they shrink
    together down to the body's minimum when they do not fit, the punchline ending early last."""
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    w.add_title(context, slide, data["title"])
    punchline = w.entry(context, data["punchline"], w.on_background(context, context.theme.accents[0]), bold=True,
                        step="title", halign="center")
    punchline.main.opacity = 0.0
    setup = w.entry(context, data["setup"], step="title", halign="center")
    for item in (setup, punchline):
        item.main.minimum = w.minimum_px(context, "body")
    w.body_column(context, slide, [setup, punchline], keep=2)
    half_dwell = float(context.row.get("dwell_seconds") or 10) / 2
    delay = config_number(context, "revealDelaySeconds", half_dwell, 0, 120)
    slide.animate(_Delayed(lambda: setattr(punchline.main, "opacity", 1.0), delay))
    return slide


def _prepare_trivia(context: RenderContext) -> Any:
    rows = newest_shuffled(context, context.host.db.TriviaQuestion, "categoryId")
    if not rows:
        return None
    row = rows[0]
    label = category_label(context, data_key(context, "categoryId"))
    return {"title": slide_title(context, f"{label} quiz" if label else "", "Quiz time"),
            "question": row.question, "options": [row.option_a, row.option_b, row.option_c, row.option_d],
            "correct": row.correct_option}


def _answer_delay(context: RenderContext) -> float:
    dwell = float(context.row.get("dwell_seconds") or 15)
    return config_number(context, "answerDelaySeconds", dwell * 0.6, 1, 300)


RIGHT = "right answer"


def _mark_answer(context: RenderContext, item: Any) -> None:
    """The right answer marked three ways: a tick for its circle, a frame around it and the words
    :data:`RIGHT` after it (a colour alone is not a mark)."""
    w = _w()
    green = w.on_background(context, w.GREEN)
    item.marker.text, item.marker.color, item.marker.icon_name = icon_text("check_circle"), green, "check_circle"
    item.main.text = f"{item.main.text} \u2014 {RIGHT}"
    item.main.bold = True
    item.outline(green)


@renderer(prepare=_prepare_trivia)
def trivia(context: RenderContext) -> Any:
    """The question and its options; after ``answerDelaySeconds`` the right one is marked (with
    ``showOptions`` false: the answer appears under the question)."""
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    w.add_title(context, slide, data["title"])
    question = w.entry(context, data["question"], bold=True)
    entries, right = [question], None
    show_options = config_flag(context, "showOptions", True)
    for i, option in enumerate(data["options"]):
        if not option or (not show_options and "ABCD"[i] != data["correct"]):
            continue
        item = w.entry(context, f"{'ABCD'[i]}. {option}" if show_options else f"Answer: {option}",
                       marker="radio_button_unchecked")
        if "ABCD"[i] == data["correct"]:
            right = item
        entries.append(item)
    w.body_column(context, slide, entries)
    if right is not None:
        def reveal() -> None:
            _mark_answer(context, right)
            right.main.opacity = right.marker.opacity = 1.0

        if not show_options:
            right.main.opacity = right.marker.opacity = 0.0
        slide.animate(_Delayed(reveal, _answer_delay(context)))
    return slide
