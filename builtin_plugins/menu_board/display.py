"""The ``menu_board`` slide (Kivy-only where it draws; ``_prepare_menu`` runs on the loader thread).

A price list read from a few metres: the title, then the sections in one or two columns (two on a
wide slide when one does not hold them, one on a portrait or narrow one), each item **one line**:
its name on the left, its note (vegan, new, sold out) in the accent colour just before its price,
the price in a right-aligned column of its own (Roboto's figures are tabular, so the prices of a column line up
digit under digit). Name, note and price are three boxes of one row: a price is never wrapped,
never moved to another line, never drawn apart from its name. A sold-out item keeps its colours (a dimmed text would not read on
the theme's ground) and has its price struck out beside a "sold out" note.

Sizes: items at the type scale's ``body`` (56 px at 1080 lines: capitals about 25 mm on a 55"
panel, the signage rule of an inch per ten feet at 3 m), shrinking to :data:`READABLE_PX` before
fewer items are shown; then the board ends with a "+N more" line rather than dropping an item
unseen (the text rule). A name too long for its box shrinks (to the same least size), then scrolls
on its line; a name too long for its line at the size chosen takes two lines (wrapped at words), its
note and price beside the last of them on the same row. The photo (``photo_blob_key``) takes the right third of a wide slide, the top of a
portrait one (picture above text), unless the items need its room: a list that fits, or shows more
items, only without it is drawn without it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hookspecs.render import ROLE_PRIMARY, TYPE_MIN, RenderContext, renderer
from svc_host.kit.display import config_text, slide_title
from svc_host.kit.display import widgets as _w

READABLE_PX = 44  # the least item size at 1080 lines (capitals about 20 mm on a 55" panel)
BODY_TOP = 0.29  # below the title band (TITLE_BOX) and its gap, a share of the slide's height
ROW, HEADER, GAP = 1.45, 1.55, 0.45  # an item's line, a section's header and the gap above it, in item sizes
WRAPPED = 2.5  # the row of an item whose name takes two lines, in item sizes
LAST_LINE = 1.33  # the height, from the row's bottom, centred on a wrapped name's last line, in item sizes
SOLD_OUT = "sold out"
PHOTO_PX = 6  # the item size (px at 1080 lines) the photo is worth: with it the items may be this much smaller
SECTION_PX = 10  # the item size (px at 1080 lines) keeping each section whole in its column is worth
GUTTER = 0.05  # between two columns, a share of the slide's width


def format_price(value: Any, currency: str) -> str:
    """A price as drawn: a number with two decimals, the currency before a symbol (``€3.90``) and
    after a code (``3.90 EUR``, a no-break space between); a text as given."""
    if isinstance(value, bool) or value is None or value == "":
        return ""
    text = f"{value:.2f}" if isinstance(value, (int, float)) else " ".join(str(value).split())
    if not currency or not text[:1].isdigit():
        return text
    return f"{text}\u00a0{currency}" if currency.isalpha() else f"{currency}{text}"


def _item(name: str, price: Any, note: str, currency: str) -> dict:
    note = " ".join(str(note or "").split())
    return {"name": " ".join(str(name).split()), "price": format_price(price, currency), "note": note,
            "sold_out": note.lower() == SOLD_OUT}


def _prepare_menu(context: RenderContext) -> Any:
    """``{title, sections: [{name, items: [{name, price, note, sold_out}]}], photo}`` from the collected
    ``board`` (``data_key`` or config) when it has items, else the config's ``sections``; None when
    neither has an item."""
    currency = config_text(context, "currency")
    board = str(context.row.get("data_key") or config_text(context, "board"))
    sections: list[dict] = []
    if board and context.host is not None:
        rows = context.host.db.MenuBoardItem.select(lambda i: i.board == board).order_by(lambda i: i.position)
        for row in rows:
            if not sections or sections[-1]["name"] != row.section:
                sections.append({"name": row.section, "items": []})
            sections[-1]["items"].append(_item(row.name, row.price, row.note, currency))
    if not sections:
        for section in context.config.get("sections") or []:
            items = [_item(i.get("name", ""), i.get("price"), i.get("note", ""), currency)
                     for i in section.get("items") or [] if str(i.get("name", "")).strip()]
            if items:
                sections.append({"name": " ".join(str(section.get("name") or "").split()), "items": items})
    if not sections:
        return None
    return {"title": slide_title(context, "Menu"), "sections": sections,
            "photo": context.blob_bytes(config_text(context, "photo_blob_key")) or None}


@dataclass
class Line:
    kind: str  # "section", "item" or "more"
    text: str
    item: dict | None = None
    wraps: bool = False  # an item whose name takes two lines at the size being tried

    def units(self, first_in_column: bool) -> float:
        if self.kind == "section":
            return HEADER + (0.0 if first_in_column else GAP)
        return WRAPPED if self.wraps else ROW


def lines_of(sections: list[dict]) -> list[Line]:
    out: list[Line] = []
    for section in sections:
        if section["name"]:
            out.append(Line("section", section["name"]))
        out.extend(Line("item", item["name"], item) for item in section["items"])
    return out


def columns_for(lines: list[Line], count: int, capacity: float) -> list[list[Line]] | None:
    """``lines`` filled into ``count`` columns of ``capacity`` units in order (a section header never
    ends a column: it moves to the next with its first item); None when they do not fit."""
    columns: list[list[Line]] = [[]]
    used = 0.0
    for index, line in enumerate(lines):
        need = line.units(not columns[-1])
        if line.kind == "section" and index + 1 < len(lines):
            need += ROW  # with its first item
        if used + need > capacity + 1e-6 and columns[-1]:
            if len(columns) == count:
                return None
            columns.append([])
            used = 0.0
            need = line.units(True) + (ROW if line.kind == "section" and index + 1 < len(lines) else 0.0)
            if need > capacity:
                return None
        columns[-1].append(line)
        used += line.units(len(columns[-1]) == 1)
    return columns


def _height(lines: list[Line]) -> float:
    return sum(line.units(index == 0) for index, line in enumerate(lines))


def _balanced(lines: list[Line], count: int, capacity: float, whole: bool = False) -> list[list[Line]] | None:
    """``lines`` in ``count`` columns of ``capacity`` units: in two columns broken between sections
    when a break there fits (the most even one), else the fewest units per column that still holds
    them (even columns, a section continued in the next)."""
    if count == 2:
        breaks = [(max(_height(lines[:i]), _height(lines[i:])), i) for i in range(1, len(lines))
                  if lines[i].kind == "section"]
        fitting = [(tallest, i) for tallest, i in breaks if tallest <= capacity + 1e-6]
        if fitting:
            cut = min(fitting)[1]
            return [lines[:cut], lines[cut:]]
        if whole:
            return None
    total = sum(line.units(False) for line in lines) + ROW
    best = columns_for(lines, count, capacity)
    if best is None or count == 1:
        return best
    low = total / count
    while low < capacity:
        trial = columns_for(lines, count, low)
        if trial is not None:
            return trial
        low += 0.25
    return best


def beside_name(item: dict, size: float) -> float:
    """The width an item's note and price take on its line at ``size`` px, with their gaps."""
    need = size * 0.4 + _extent(item["price"] or "0", size, True) + size * 0.2
    if item.get("note"):
        need += _extent(item["note"], size * 0.62, True) + size * 0.4
    return need


def wrap_lines(lines: list[Line], size: float, column: float) -> bool:
    """Mark the items whose name needs two lines in a ``column`` px wide at ``size``; False when a
    name does not fit even on two (wrapped at words, its longest word on one line)."""
    for line in lines:
        if line.item is None:
            continue
        room = column - beside_name(line.item, size)
        name = line.item["name"]
        line.wraps = _extent(name, size, False) > room
        if line.wraps and (room <= 0 or _w().text_extent({}, name, size, room)[2] > 2):
            return False
    return True


def layout(lines: list[Line], height_px: float, column_px: Any, nominal: float, least: float, counts: tuple[int, ...],
           section_px: float = 0.0) -> tuple[float, list[list[Line]]]:
    """The item size and the columns: the largest size from ``nominal`` down to ``least`` at which
    every line fits, in height and on its line (``column_px(count)``: a column's width), in one of
    ``counts`` columns (the fewest first); at ``least`` the items that do not fit are left out from
    the end and a ``+N more`` line says how many."""
    found = {}
    for whole in (True, False):  # sections whole in their column, else continued in the next
        for wrapping in (False, True):  # every name on one line, else long ones on two
            size = nominal
            while size >= least - 1e-6 and (whole, wrapping) not in found:
                for count in counts:
                    if not wrap_lines(lines, size, column_px(count)) or (
                            not wrapping and any(line.wraps for line in lines)):
                        continue
                    columns = _balanced(lines, count, height_px / size, whole)
                    if columns is not None:
                        found[(whole, wrapping)] = (size, count, columns)
                        break
                size -= 2
    if found:  # the largest size, whole sections and one-line names each worth section_px of it
        (whole, wrapping), (size, count, columns) = max(
            found.items(), key=lambda kv: kv[1][0] + section_px * (kv[0][0] + (not kv[0][1])))
        wrap_lines(lines, size, column_px(count))
        return size, columns
    size = least
    items = sum(1 for line in lines if line.kind == "item")
    kept = list(lines)
    while kept:
        kept.pop()
        while kept and kept[-1].kind == "section":
            kept.pop()
        shown = sum(1 for line in kept if line.kind == "item")
        more = Line("more", f"+{items - shown} more on the menu")
        count = max([c for c in counts if wrap_lines(lines, size, column_px(c))] or [1])
        wrap_lines(lines, size, column_px(count))
        columns = columns_for(kept + [more], count, height_px / size)
        if columns is not None:
            return size, columns
    return size, [[Line("more", f"+{items} more on the menu")]]


def _extent(text: str, size: float, bold: bool) -> float:
    return _w().text_extent({"bold": bold}, text, size)[0]


def _row(context: RenderContext, line: Line, size: float, least: float, price_w: float) -> Any:
    """One item: name, note and price, boxes of one horizontal row (never apart): the name from the
    left, the note right-aligned before the price column at the row's right end."""
    from kivy.uix.boxlayout import BoxLayout

    w = _w()
    item = line.item or {}
    theme = context.theme
    fg = theme.text  # a sold-out item keeps its colour (dimmed text would not read): its price is struck out
    row = BoxLayout(orientation="horizontal", spacing=size * 0.4)
    note_px = size * 0.62
    note_w = _extent(item["note"], note_px, True) + 2 if item.get("note") else 0.0
    if line.wraps:  # two lines, wrapped at words
        name = w.label(item.get("name", ""), size, fg, halign="left", minimum=least, max_lines=2)
    else:
        name = w.fit_label(item.get("name", ""), size, fg, halign="left", minimum=least)
    name.role = ROLE_PRIMARY
    name.menu_part = "name"
    row.add_widget(name)
    if note_w:
        color = w.on_background(context, w.RED) if item.get("sold_out") else w.on_background(context, theme.accents[0])
        note = w.fit_label(item["note"], note_px, color, bold=True, halign="left", minimum=note_px,
                           size_hint_x=None, width=note_w)
        note.menu_part = "note"
        row.add_widget(note)
    price = w.fit_label(item.get("price", ""), size, fg, bold=True, halign="right", minimum=least,
                        size_hint_x=None, width=price_w)
    price.strikethrough = bool(item.get("sold_out"))
    price.menu_part = "price"
    row.add_widget(price)
    if line.wraps:  # note and price on the name's last line (the row's bottom), as a printed menu sets them
        for part in row.children[:2 if note_w else 1]:
            part.size_hint_y, part.height = None, size * LAST_LINE
    row.menu_item = item
    return row


@renderer(prepare=_prepare_menu)
def menu_board(context: RenderContext) -> Any:
    w = _w()
    slide = w.themed_slide(context)
    data = context.data
    w.add_title(context, slide, data["title"])
    width, height = context.size
    wide = not w.stacked(context) and width >= 1.3 * height  # portrait: one column, the photo above
    # the body step, scaled by the short side as its minimum is (a portrait slide's type is a landscape one's)
    per_px = context.min_px("body") / TYPE_MIN["body"]
    nominal, least = min(context.type_px("body"), context.theme.type_scale("body") * per_px), READABLE_PX * per_px
    plans = []
    for with_photo in ((True, False) if data.get("photo") else (False,)):
        lines = lines_of(data["sections"])  # each plan marks its own lines' wrapping
        left, right, bottom, top = 0.08, 0.94, 0.06, 1 - BODY_TOP
        photo_box = None
        if with_photo and wide:  # the right third, beside the list
            photo_box = ((0.28, top - bottom), {"right": right, "y": bottom})
            right -= 0.31
        elif with_photo:  # picture above text
            share = min(0.24, 0.45 * width / height)
            photo_box = ((right - left, share), {"x": left, "top": top})
            top -= share + 0.03
        span = right - left
        size, columns = layout(lines, (top - bottom) * height,
                               lambda count, span=span: (span - GUTTER * (count - 1)) / count * width,
                               nominal, least, (1, 2) if wide else (1,), SECTION_PX * per_px)
        whole = not any(line.kind == "more" for column in columns for line in column)
        shown = sum(1 for column in columns for line in column if line.kind == "item")
        # the plan that shows the most items (every one when it can), at the largest size; the photo
        # when it costs at most PHOTO_PX and no item (a cramped slide under a portrait alert)
        plans.append(((whole, shown, size + (context.font(PHOTO_PX) if with_photo else 0.0)),
                      (left, right, bottom, top, photo_box, size, columns)))
    left, right, bottom, top, photo_box, size, columns = max(plans, key=lambda plan: plan[0])[1]
    if photo_box is not None:
        photo = w.ImageFill(w.decoded_texture(data["photo"], "the menu board's photo"), mode="cover",
                            size_hint=photo_box[0], pos_hint=photo_box[1])
        photo.reserve = True
        slide.add_widget(photo)
    gutter = GUTTER if len(columns) > 1 else 0.0
    col_w = ((right - left) - gutter * (len(columns) - 1)) / len(columns)
    for index, column in enumerate(columns):
        x = left + index * (col_w + gutter)
        prices = [line.item["price"] for line in column if line.item and line.item.get("price")]
        price_w = max([_extent(p, size, True) for p in prices] + [size]) + size * 0.2
        y = top
        for number, line in enumerate(column):
            units = line.units(number == 0)
            band = units * size / height
            if line.kind == "section":
                rule = ROW * 0.06 * size / height
                header = w.fit_label(line.text, size * 0.82, w.on_background(context, context.theme.accents[0]),
                                     bold=True, halign="left", minimum=least * 0.82,
                                     size_hint=(col_w, HEADER * 0.8 * size / height),
                                     pos_hint={"x": x, "top": y - (band - HEADER * size / height)})
                header.menu_part = "section"
                slide.add_widget(header)
                slide.add_widget(w.Backdrop([(*context.theme.text[:3], 0.25)], size_hint=(col_w, rule),
                                            pos_hint={"x": x, "top": y - band + rule * 2}))
            elif line.kind == "item":
                row = _row(context, line, size, least, price_w)
                row.size_hint, row.pos_hint = (col_w, band), {"x": x, "top": y}
                slide.add_widget(row)
            else:
                more = w.fit_label(line.text, size * 0.8, w.on_background(context, context.theme.accents[0]),
                                   halign="left", minimum=least * 0.8, size_hint=(col_w, band),
                                   pos_hint={"x": x, "top": y})
                more.menu_part = "more"
                slide.add_widget(more)
            y -= band
    return slide
