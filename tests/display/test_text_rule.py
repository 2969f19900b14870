"""The text rule on the real canvas (offscreen, :mod:`tests.display.text_rule` in a driven child):
a label wraps at word boundaries only, then shrinks down to its role's minimum
(:data:`hookspecs.render.TYPE_MIN`, scaled with the screen's short side), and what still does not
fit is shown in fewer items; never cut mid-text, never broken inside a word.

Judged on what Kivy laid out: the words of each drawn line (a word broken across two lines, or a
text cut, shows as words that are not the text's), the texture's size against the label's box and
the slide's, the font size against the minimum. First the kit's widgets alone, then every builtin
text slide type with realistic long texts (a long headline, a 200-character summary, a long
welcome) in the narrow free area corner overlays leave on a landscape screen and on a portrait
screen (half-size screens: the type scale and the minimums scale with them)."""
from __future__ import annotations

import pytest

from builtin_plugins.media.samples import PHOTOS
from hookspecs.render import TITLE_BOX, TYPE_MIN
from tests.display.driven import run
from tests.display.text_rule import LONG

WORD = "Tomorrow"


def judge(label: dict, box: list[int], min_px: dict[str, float]) -> list[str]:
    """What a person would not read whole in ``label``: a word broken or lost, text outside its box or
    the slide's, a size below its role's minimum."""
    name = f"{label['text'][:40]!r}"
    x, y, width, height = label["rect"]
    tw, th = label["texture"]
    problems = []
    left, bottom = x + (width - tw) / 2, y + (height - th) / 2  # Kivy draws the texture centred in the label
    if left < -1 or bottom < -1 or left + tw > box[0] + 1 or bottom + th > box[1] + 1:
        problems.append(f"{name}: drawn at {[round(left), round(bottom), tw, th]}, outside the slide {box}")
    if label["icon"]:
        return problems
    drawn = " ".join(label["lines"]).split()
    if drawn != label["text"].split():
        problems.append(f"{name}: drawn as lines {label['lines']}")
    if tw > width + 1 or (not label["sized_by_text"] and th > height + 1):
        problems.append(f"{name}: its text ({tw} x {th}) is larger than its box ({width} x {height})")
    floor = min_px["title" if label["role"] == "title" else "body" if label["role"] == "primary" else "caption"]
    if label["font_px"] < floor - 0.5:
        problems.append(f"{name}: {label['font_px']} px, below the minimum {floor:.1f} px of its role")
    return problems


# -- the kit -------------------------------------------------------------------------------------

def test_the_kit_wraps_at_words_shrinks_to_its_minimum_and_says_what_does_not_fit(env, tmp_path):
    minimum = 28
    cases = [
        # a word wider than the box at the nominal size: shrunk until it fits, never broken
        {"kind": "text", "box": [150, 200], "font": 56, "minimum": minimum, "text": f"{WORD}  is   sunny"},
        # a long text in a short box: as large as fits, down to the minimum
        {"kind": "text", "box": [480, 240], "font": 56, "minimum": minimum, "text": LONG["summary"]},
        # one line: shrinks to fit, never below the minimum, then says it does not fit and scrolls
        {"kind": "line", "box": [200, 80], "font": 60, "minimum": minimum, "text": "Happy birthday, Maximiliane!"},
        # a column: the first item shrinks to fit, the others at its size or left out; its start shown
        {"kind": "column", "box": [300, 250], "font": 56, "minimum": minimum,
         "texts": [LONG["summary"], *LONG["headlines"][:3]]},
        # a one-line message (a ScrollBox) that fits once shrunk, and one that does not even at its minimum
        {"kind": "scroll", "box": [400, 80], "font": 60, "minimum": minimum, "lines": 1, "text": "Storm warning at 15:00"},
        {"kind": "scroll", "box": [400, 80], "font": 60, "minimum": minimum, "lines": 1, "frames": 160,
         "text": "Storm warning: strong winds expected from 15:00, terrace closed"},
        # a column whose first item fits whole at its minimum only where the "more" line would go:
        # it ends early for the line (items are never left out unsaid)
        {"kind": "column", "box": [300, 0], "font": 56, "minimum": minimum, "first_fits_alone": True,
         "texts": [LONG["summary"], *LONG["headlines"][:3]]},
    ]
    answer = run(env, {"scenario": "tests.display.text_rule:kit_texts", "size": [960, 540], "cases": cases},
                 tmp_path)
    word, summary, line, column = answer["cases"][:4]
    floors = {"title": minimum, "body": minimum, "caption": minimum}
    for case, seen in zip(cases, answer["cases"]):
        for label in seen["labels"]:
            if label["fits"] is False:  # said so: the caller shows fewer items or scrolls
                continue
            assert not judge(label, seen["box"], floors), judge(label, seen["box"], floors)
    (drawn,) = word["labels"]
    assert drawn["text"] == f"{WORD} is sunny" and drawn["lines"][0] == WORD, drawn  # tidied, whole
    assert minimum <= drawn["font_px"] < 56 and drawn["fits"], drawn
    (drawn,) = summary["labels"]
    assert drawn["font_px"] < 56 and drawn["texture"][1] <= 240, drawn
    (drawn,) = line["labels"]  # too long at its minimum: the whole line, in a window of its box (it scrolls)
    assert drawn["fits"] is False and drawn["scrolls"] and len(drawn["lines"]) == 1, drawn
    assert drawn["font_px"] >= minimum and drawn["texture"][0] == 200 and drawn["whole_width"] > 200, drawn
    assert column["shown"] == 1, column  # the summary alone, as large as fits
    fitted, scrolled, tight = answer["cases"][4:]
    (drawn,) = fitted["labels"]
    assert not drawn["scrolls"] and drawn["fits"] and minimum <= drawn["font_px"] < 60 and len(drawn["lines"]) == 1
    # too long at the minimum: the whole text on one line, drawn in a window of its box that moves
    # from its start to its end over the frames (every character shown), never cut or ellipsized
    (drawn,) = scrolled["labels"]
    assert drawn["scrolls"] and drawn["text"] == cases[5]["text"] and len(drawn["lines"]) == 1, drawn
    assert " ".join(drawn["lines"]).split() == cases[5]["text"].split(), drawn
    assert drawn["font_px"] >= minimum and drawn["texture"][0] == 400 and drawn["whole_width"] > 400, drawn
    assert min(scrolled["offsets"]) == 0 and max(scrolled["offsets"]) == scrolled["travel"] > 0, scrolled
    assert 0 in scrolled["offsets"][scrolled["offsets"].index(scrolled["travel"]):], scrolled  # and starts over
    first, more = column["labels"]  # the summary, ended early, and the line saying what was left out
    assert first["text"].startswith(LONG["summary"][:60]) and first["text"].endswith("\u2026"), first
    assert first["font_px"] == minimum, first
    assert more["text"] == "+3 more" and more["role"] == "more" and more["rect"][1] >= 0, more
    first, more = tight["labels"]  # was the summary whole and nothing said of the three left out
    assert first["text"].endswith("\u2026") and first["font_px"] == minimum, first
    assert more["text"] == "+3 more" and more["rect"][1] >= 0, (more, tight["box"])


# -- every text slide ------------------------------------------------------------------------------

SLIDES = [
    ["message", {"title": LONG["title"], "body": LONG["body"], "textAlign": "center"}],
    ["news_headlines", {"feedIds": ["long-news"], "maxAgeHours": 48}],
    ["news_article", {"feedIds": ["long-news"], "category": "", "showSummary": True, "showQrLink": True}],
    ["weather_forecast", {}],
    ["weather_current", {}],
    ["stock_quotes", {"symbols": ["AAPL", "MSFT"]}],
    ["joke", {}],
    ["trivia", {}],
    ["calendar_agenda", {}],
    ["task_board", {}],
    ["clock", {}],
    ["qr_code", {"caption": "Scan for today's menu and the allergen list"}],
    ["photo", {"kenBurns": True}],  # its slow zoom (15 s of it) stays inside the slide
    ["calendar_month", {}],
    ["alerts", {}],
    ["controller_invite", {"urlOverride": "https://aurora-cafe.example.org/controller"}],
]

BIRTHDAY = "Happy birthday, Maximiliane Rosenthal-Oberhauser, from all of us at Aurora"
OVERLAYS = [["digital_clock", {"show_date": True, "time_format_preset": "24h_hm"}],
            ["birthday_confetti", {"messages": [BIRTHDAY]}],
            ["bouncing_message", {"messages": [BIRTHDAY]}]]
"""Overlay panels whose text must stay inside the panel (judged like a slide's in the panel's box)."""


def slides(env: dict, tmp_path, size: list[int], boxes: list[list[int]]) -> list[dict]:
    answer = run(env, {"scenario": "tests.display.text_rule:slide_texts", "size": size, "seed": "samples",
                       "slides": SLIDES, "boxes": boxes, "overlays": OVERLAYS}, tmp_path)
    assert "Traceback" not in answer["log"], answer["log"][-3000:]
    return answer["slides"]


def check_slides(drawn: list[dict]) -> None:
    failures = []
    for slide in drawn:
        where = f"{slide['type']} in {slide['box']} of {slide['screen']}"
        if not [label for label in slide["labels"] if not label["icon"]]:
            failures.append(f"{where}: no text drawn")
        failures += [f"{where}: {problem}" for label in slide["labels"]
                     for problem in judge(label, slide["box"], slide["min_px"])]
        for x, y, width, height in slide.get("pictures", []):
            if x < -0.5 or y < -0.5 or x + width > slide["box"][0] + 0.5 or y + height > slide["box"][1] + 0.5:
                failures.append(f"{where}: a picture drawn at {[x, y, width, height]}, outside the slide")
    assert not failures, "\n".join(failures)


def check_long_texts(drawn: list[dict]) -> None:
    """The long texts are shown from their start: the welcome's title and body whole, the summary's
    first words, the first headline whole."""
    by_type = {slide["type"]: [label["text"] for label in slide["labels"]] for slide in drawn}
    assert LONG["title"] in by_type["message"], by_type["message"]
    assert all(paragraph in "\n".join(by_type["message"]) for paragraph in LONG["body"].split("\n")), by_type["message"]
    assert any(text.startswith(LONG["summary"][:40]) for text in by_type["news_article"]), by_type["news_article"]
    assert LONG["headlines"][0] in by_type["news_headlines"], by_type["news_headlines"]
    assert BIRTHDAY in by_type["birthday_confetti"], by_type["birthday_confetti"]  # whole, never shortened
    assert BIRTHDAY in by_type["bouncing_message"], by_type["bouncing_message"]


def check_picture_caption(drawn: list[dict]) -> None:
    """The photo's caption band is full-bleed, its text in the slides' title inset (it sat at 3 %,
    outside the title-safe area at the screen's edge), and its credit names a person, never a raw
    provenance id (it said "manual_entry" under every uploaded video)."""
    (photo,) = [slide for slide in drawn if slide["type"] == "photo"]
    (caption,) = [label for label in photo["labels"] if not label["icon"]]
    width = photo["box"][0]
    x, _y, w, _h = caption["rect"]
    assert x >= width * TITLE_BOX[0] - 1 and x + w <= width * (1 - TITLE_BOX[0]) + 1, (caption, photo["box"])
    assert caption["text"].split(" \u2014 ")[-1] in {who for _alt, who, *_ in PHOTOS}, caption  # the samples'
    assert "_" not in caption["text"], caption


def check_grid(drawn: list[dict]) -> None:
    """The month's cells share one size (the text rule for a grid): no day drawn larger than its
    neighbours, none below the body's minimum."""
    (month,) = [slide for slide in drawn if slide["type"] == "calendar_month"]
    cells = [label for label in month["labels"] if label["role"] == "primary"]
    assert len(cells) >= 28 + 7, cells
    assert len({label["font_px"] for label in cells}) == 1, sorted({label["font_px"] for label in cells})
    assert cells[0]["font_px"] >= month["min_px"]["body"] - 0.5, cells[0]


@pytest.mark.slow
def test_every_text_slide_keeps_its_words_whole_at_a_readable_size_beside_corner_overlays(env, tmp_path):
    """A landscape screen (960x540) whose corner overlays leave the slide a column 400 px wide."""
    drawn = slides(env, tmp_path, [960, 540], [[400, 540]])
    assert drawn[0]["min_px"]["body"] == TYPE_MIN["body"] * 540 / 1080
    check_slides(drawn)
    check_long_texts(drawn)
    check_grid(drawn)
    check_picture_caption(drawn)


@pytest.mark.slow
def test_every_text_slide_keeps_its_words_whole_at_a_readable_size_on_a_portrait_screen(env, tmp_path):
    drawn = slides(env, tmp_path, [540, 960], [[540, 960]])
    check_slides(drawn)
    check_long_texts(drawn)
    check_grid(drawn)
    check_picture_caption(drawn)


def test_a_slide_in_part_of_the_screen_meets_the_theme_backdrop_without_a_seam(env, tmp_path):
    """plum_gold's strong gradient, a slide in the middle third of the height: the colour across its
    top and bottom edges changes no more than between any two neighbouring rows of the backdrop."""
    box = [200, 180, 500, 180]
    column = run(env, {"scenario": "tests.display.text_rule:seam", "size": [960, 540], "theme": "plum_gold",
                       "box": box}, tmp_path)["column"]
    steps = [max(abs(a - b) for a, b in zip(low, high)) for low, high in zip(column, column[1:])]
    edges = {box[1] - 1: steps[box[1] - 1], box[1] + box[3] - 1: steps[box[1] + box[3] - 1]}
    inside = max(steps[:box[1] - 2] + steps[box[1] + 1:box[1] + box[3] - 2] + steps[box[1] + box[3] + 1:])
    assert max(edges.values()) <= max(2, inside), (edges, inside)


def inside(outer: list[float], inner: list[float], slack: float = 1.0) -> bool:
    return inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and \
        inner[0] + inner[2] <= outer[0] + outer[2] + slack and inner[1] + inner[3] <= outer[1] + outer[3] + slack


LONG_IDENTIFIER = "front-desk-kiosk-" + "-".join(["aurora-community-cafe-ground-floor"] * 3)  # 122 characters


@pytest.mark.slow
def test_a_one_line_label_too_long_at_its_minimum_scrolls_inside_its_box_on_a_narrow_portrait_screen(env, tmp_path):
    """The kit's one-line ``fit_label`` (the clock's time, the pairing card's lines) on a 540x960 portrait
    screen: the digital clock at its smallest scale (a panel about 50 px wide, its time at the body's
    minimum still wider) and a pairing request from a 122-character identifier. Every line is drawn
    inside its box and its box inside its panel or card; a line that does not fit at its minimum is
    the whole text on one line, scrolling from its start to its end on frame time (the layer ticks
    it). The label used to be drawn wider than its box, over the panel's edge and off the card."""
    clock = ["o_clock", "digital_clock", {"scale": 0.25, "show_date": True, "position": "top_right",
                                          "time_format_preset": "12h_hms_tt"}]
    seen = run(env, {"scenario": "tests.display.text_rule:narrow_lines", "size": [540, 960],
                     "overlays": [clock], "identifier": LONG_IDENTIFIER, "frames": 40, "dt": 1.0}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    assert set(seen["holders"]) == {"o_clock", "adoption"}, seen["holders"]
    failures = []
    for label in seen["labels"]:
        holder = seen["holders"][label["holder"]]
        name = f"{label['holder']}: {label['text'][:40]!r}"
        if len(label["lines"]) != 1 or " ".join(label["lines"]).split() != label["text"].split():
            failures.append(f"{name}: drawn as lines {label['lines']}")
        if not inside(label["rect"], label["drawn"]) or not inside(holder, label["rect"]):
            failures.append(f"{name}: drawn at {label['drawn']}, its box {label['rect']}, in {holder}")
        if label["minimum"] is not None and label["font_px"] < label["minimum"] - 0.5:
            failures.append(f"{name}: {label['font_px']} px, below its minimum {label['minimum']}")
    assert not failures, "\n".join(failures)
    scrolling = {label["holder"]: label for label in seen["labels"] if label["scrolls"]}
    assert set(scrolling) == {"o_clock", "adoption"}, [(l["holder"], l["text"]) for l in seen["labels"]]
    assert scrolling["adoption"]["text"] == LONG_IDENTIFIER, scrolling["adoption"]
    for label in scrolling.values():  # from its start to its end, and from its start again
        offsets, travel = label["offsets"], label["travel"]
        assert travel > 0 and max(offsets) == pytest.approx(travel) and 0 in offsets[offsets.index(max(offsets)):], label
