"""The joke and trivia slides' drawing (Kivy-only, imported when a canvas starts). Content: a
random one of the newest unsuppressed ``Joke`` / ``TriviaQuestion`` rows of the category
``data_key`` or ``categoryId`` names. Config keys: those of :mod:`builtin_plugins.content.types`."""
from __future__ import annotations

from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.display.kit import config_flag, config_number, newest_shuffled
from svc_host.display.kit import widgets as _w


def _prepare_joke(context: RenderContext) -> Any:
    rows = newest_shuffled(context, context.host.db.Joke, "categoryId")
    if not rows:
        return None
    return {"setup": rows[0].setup, "punchline": rows[0].punchline}


class _Delayed:
    """Sets ``label.text`` to ``text`` once ``after`` seconds have passed."""

    def __init__(self, label: Any, text: str, after: float):
        self.label, self.text, self.after, self.t = label, text, after, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.after and self.label.text != self.text:
            self.label.text = self.text


@renderer(prepare=_prepare_joke)
def joke(context: RenderContext) -> Any:
    """The punchline appears after ``revealDelaySeconds`` (default: half the dwell)."""
    w = _w()
    slide = w.text_slide(context, "Joke", [context.data["setup"]], body_size=60)
    punchline = w.label("", context.font(60), context.theme.accents[0], bold=True, valign="top",
                        size_hint=(0.84, None), pos_hint={"x": 0.08, "top": 0.36})
    slide.add_widget(punchline)
    half_dwell = float(context.row.get("dwell_seconds") or 10) / 2
    delay = config_number(context, "revealDelaySeconds", half_dwell, 0, 120)
    slide.animate(_Delayed(punchline, context.data["punchline"], delay))
    return slide


def _prepare_trivia(context: RenderContext) -> Any:
    rows = newest_shuffled(context, context.host.db.TriviaQuestion, "categoryId")
    if not rows:
        return None
    row = rows[0]
    return {"question": row.question, "options": [row.option_a, row.option_b, row.option_c, row.option_d],
            "correct": row.correct_option}


class _Reveal:
    def __init__(self, labels: list, correct: int, after: float, color: Any):
        self.labels, self.correct, self.after, self.color, self.t = labels, correct, after, color, 0.0

    def tick(self, dt: float) -> None:
        self.t += dt
        if self.t >= self.after and 0 <= self.correct < len(self.labels):
            self.labels[self.correct].color = self.color
            self.after = float("inf")


def _answer_delay(context: RenderContext) -> float:
    dwell = float(context.row.get("dwell_seconds") or 15)
    return config_number(context, "answerDelaySeconds", dwell * 0.6, 1, 300)


@renderer(prepare=_prepare_trivia)
def trivia(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    fg = context.theme.text
    slide.add_widget(w.label(data["question"], context.font(60), fg, bold=True, valign="top",
                             size_hint=(0.84, 0.3), pos_hint={"x": 0.08, "top": 0.92}))
    labels = []
    show_options = config_flag(context, "showOptions", True)
    for i, option in enumerate(data["options"]):
        if not option:
            continue
        if not show_options:  # the question alone; the right answer appears after the delay
            if "ABCD"[i] == data["correct"]:
                item = w.label("", context.font(56), w.on_background(context, w.GREEN), bold=True,
                               size_hint=(0.84, 0.12), pos_hint={"x": 0.1, "top": 0.5})
                slide.add_widget(item)
                slide.animate(_Delayed(item, option, _answer_delay(context)))
            continue
        item = w.label(f"{'ABCD'[i]}.  {option}", context.font(56), fg, size_hint=(0.84, 0.1),
                       pos_hint={"x": 0.1, "top": 0.58 - i * 0.12})
        labels.append(item)
        slide.add_widget(item)
    if show_options:
        slide.animate(_Reveal(labels, "ABCD".find(data["correct"] or "?"), _answer_delay(context),
                                    w.on_background(context, w.GREEN)))
    return slide
