"""The menu board on the real canvas (offscreen, the builtin layers, the slide stored over REST;
:mod:`tests.menu_board.screens`) at 1920x1080 and 1080x1920: every item is one line whose price sits
in the right-aligned price column on the same line as its name (never split from it, never wrapped,
never scrolled), at a size read from 3 m; a list longer than the slide ends with "+N more" naming
what it leaves out; and OCR (tesseract) reads each name and its price on one line of the picture."""
from __future__ import annotations

import re
import subprocess

import pytest

from tests.display.driven import run

SECTIONS = [
    {"name": "Coffee", "items": [
        {"name": "Espresso", "price": 2.4}, {"name": "Flat white", "price": 3.9},
        {"name": "Cappuccino", "price": 3.6}, {"name": "Oat milk latte", "price": 4.2, "note": "vegan"},
        {"name": "Chai latte", "price": 4.1, "note": "new"}]},
    {"name": "Bakery", "items": [
        {"name": "Butter croissant", "price": 2.8}, {"name": "Pain au chocolat", "price": 3.1},
        {"name": "Cinnamon bun", "price": 3.2, "note": "new"}, {"name": "Banana bread", "price": 3.4, "note": "sold out"}]},
    {"name": "Lunch", "items": [
        {"name": "Soup of the day with sourdough", "price": "5.50", "note": "vegan"},
        {"name": "Quiche with green salad", "price": 8.9}, {"name": "Club sandwich", "price": 9.4}]},
]
READABLE_PX = 44  # builtin_plugins.menu_board.display.READABLE_PX: the least item size at 1080 lines


def slide(sections: list[dict]) -> list:
    return [["POST", "/v1/screens", {"id": "menu", "screen_type": "menu_board", "dwell_seconds": 600,
                                     "config_json": {"title": "Today's menu", "currency": "€", "sections": sections}}]]


def centre_y(rect: list[float]) -> float:
    return rect[1] + rect[3] / 2


def check_lines(rows: list[dict], short_side: int) -> None:
    """Each item one row: name, note and price boxes side by side on it, the price's text whole on one
    line in its box (not scrolled), the name's too (or on two lines, wrapped at words, when long);
    prices of a column right-aligned; readable sizes."""
    failures = []
    for row in rows:
        name, price, note = row.get("name"), row.get("price"), row.get("note")
        label = row["item"]["name"]
        if name is None or price is None:
            failures.append(f"{label}: name or price missing ({row})")
            continue
        for part in (name, price) + ((note,) if note else ()):
            wrapped = part is name and part["lines"] == 2 and part["height"] <= part["rect"][3] + 1  # a long name
            if part["scrolls"] or (part["needs"] > part["rect"][2] + 1 and not wrapped):
                failures.append(f"{label}: {part['text']!r} needs {part['needs']} px in {part['rect'][2]}")
            line_y = centre_y(name["rect"]) - (name["height"] / 4 if name["lines"] == 2 else 0)  # the last line's
            if part is not name and abs(centre_y(part["rect"]) - line_y) > 0.15 * name["font_px"]:
                failures.append(f"{label}: {part['text']!r} is not on the name's line ({part['rect']} {name['rect']})")
        boxes = [name] + ([note] if note else []) + [price]
        for left, right in zip(boxes, boxes[1:]):
            if left["rect"][0] + left["rect"][2] > right["rect"][0] + 1:
                failures.append(f"{label}: {left['text']!r} runs into {right['text']!r}")
        if min(name["font_px"], price["font_px"]) < READABLE_PX * short_side / 1080 - 0.5:
            failures.append(f"{label}: {name['font_px']} px")
    columns: dict[float, set[float]] = {}
    for row in rows:
        if row.get("price"):
            columns.setdefault(row["rect"][0], set()).add(round(row["price"]["rect"][0] + row["price"]["rect"][2]))
    failures += [f"prices of the column at x={x} end at {ends}" for x, ends in columns.items() if len(ends) > 1]
    assert not failures, "\n".join(failures)


def ocr_lines(png: str, rows: list[dict], height: int) -> list[str]:
    """The lines tesseract reads in each column of items (cropped: it reads across columns otherwise)."""
    from PIL import Image

    picture = Image.open(png)
    lines = []
    for x in sorted({row["rect"][0] for row in rows}):
        column = [row["rect"] for row in rows if row["rect"][0] == x]
        top = height - max(r[1] + r[3] for r in column)
        bottom = height - min(r[1] for r in column)
        crop = png + f".{int(x)}.png"
        picture.crop((int(x) - 8, int(top) - 8, int(x + column[0][2]) + 8, int(bottom) + 8)).save(crop)
        done = subprocess.run(["tesseract", crop, "stdout", "--psm", "6"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        lines += [" ".join(line.split()).replace(",", ".") for line in done.stdout.splitlines() if line.strip()]
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1920, 1080), (1080, 1920)], ids=["landscape", "portrait"])
def test_prices_are_never_split_from_their_names(env, tmp_path, size):
    png = str(tmp_path / "menu.png")
    seen = run(env, {"scenario": "tests.menu_board.screens:board", "size": list(size), "requests": slide(SECTIONS),
                     "png": png}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    rows = seen["rows"]
    expected = [(i["name"], f"€{float(i['price']):.2f}") for s in SECTIONS for i in s["items"]]
    assert [(r["item"]["name"], r["price"]["text"]) for r in rows] == expected  # every item, in order, no "more"
    assert [o["text"] for o in seen["others"]] == ["Coffee", "Bakery", "Lunch"]
    check_lines(rows, min(size))
    sold = next(r for r in rows if r["item"]["name"] == "Banana bread")
    assert sold["note"]["text"] == "sold out" and sold["item"]["sold_out"]
    # as a viewer reads it: each name and its price on one line of text
    lines = ocr_lines(png, rows, size[1])
    struck = {r["item"]["name"] for r in rows if r["item"]["sold_out"]}  # its price struck out: its note is read

    def read(name: str, price: str) -> bool:
        mark = "sold" if name in struck else price[1:]
        return any(mark in line and any(word in line for word in name.split()) for line in lines)

    unread = [(name, price) for name, price in expected if not read(name, price)]
    assert not unread, (unread, lines)


@pytest.mark.slow
def test_a_list_longer_than_the_slide_says_how_many_more(env, tmp_path):
    items = [{"name": f"Sandwich number {n}", "price": 4 + n / 10} for n in range(40)]
    seen = run(env, {"scenario": "tests.menu_board.screens:board", "size": [1920, 1080],
                     "requests": slide([{"name": "Sandwiches", "items": items}])}, tmp_path)
    rows, others = seen["rows"], seen["others"]
    assert 10 <= len(rows) < 40
    assert [r["item"]["name"] for r in rows] == [i["name"] for i in items[:len(rows)]]  # the first ones, in order
    assert others[-1] == {**others[-1], "part": "more", "text": f"+{40 - len(rows)} more on the menu"}
    check_lines(rows, 1080)


@pytest.mark.slow
def test_the_photo_gives_way_when_the_list_needs_its_room(env, tmp_path):
    """A list longer than a portrait slide with a photo: the board is drawn without the photo, showing
    as many items as without one (the photo used to win and leave more items out: a cramped board
    under a portrait alert showed one item, its photo and "+5 more")."""
    items = [{"name": f"Sandwich number {n}", "price": 4 + n / 10} for n in range(40)]
    shown = []
    for index, photo in enumerate(({}, {"photo_blob_key": "samples/menu-photo.png"})):  # its sample photo
        requests = slide([{"name": "Sandwiches", "items": items}])
        requests[0][2]["config_json"].update(photo)
        data = {**env, "SVC_DISPLAY_DATA_DIR": str(tmp_path / f"data-{index}")}  # a fresh host each
        seen = run(data, {"scenario": "tests.menu_board.screens:board", "size": [1080, 1920],
                          "seed": "samples", "samples": ["menu_board"], "requests": requests}, tmp_path)
        shown.append(len(seen["rows"]))
    assert 10 <= shown[0] < 40 and shown[1] == shown[0], shown
