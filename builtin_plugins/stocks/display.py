"""The stock types' drawing (Kivy-only, imported when a canvas starts): the ``stock_quotes`` slide
and the ``stock_quote`` overlay, from ``StockQuote`` rows. Config keys: those of
``builtin_plugins/stocks/types.json``."""
from __future__ import annotations

from typing import Any

from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import category_label, config_flag, config_strings, config_text, slide_title
from svc_host.kit.display import widgets as _w


def _prepare_quotes(context: RenderContext) -> Any:
    """The quotes of ``symbols`` and ``data_key`` (in that order; every quote when none is
    named), narrowed to the symbols of ``category``; at most 8."""
    db = context.host.db
    rows = list(db.StockQuote.select())
    wanted = [s.upper() for s in config_strings(context, "symbols")]
    if context.row.get("data_key"):
        wanted.append(str(context.row["data_key"]).upper())
    category = config_text(context, "category")
    if category:
        in_category = {s.id for s in db.StockSymbol.select(lambda s: s.category == category)}
        rows = [r for r in rows if r.symbol_id in in_category]
    if wanted:
        rank = {symbol: i for i, symbol in enumerate(wanted)}
        rows = [r for r in rows if r.symbol.upper() in rank or r.symbol_id.upper() in rank]
        rows.sort(key=lambda r: rank.get(r.symbol.upper(), rank.get(r.symbol_id.upper(), 0)))
    else:
        rows.sort(key=lambda r: r.symbol)
    if not rows:
        return None
    return {"title": slide_title(context, category_label(context, category), "Markets"),
            "quotes": [{"symbol": r.symbol, "name": r.display_name, "price": r.price, "change": r.change,
                        "pct": r.change_percent, "currency": r.currency} for r in rows[:8]]}


@renderer(prepare=_prepare_quotes)
def stock_quotes(context: RenderContext) -> Any:
    """A quote a row (symbol and name, price, change with an up or down arrow: a shape as well as a
    colour) spread over the slide below the title: on a wide slide a table (each cell one line,
    shrunk to fit down to its minimum), else (a narrow free area, a portrait screen) an item a quote,
    the name over the price and change, the items that do not fit left out."""
    w = _w()
    slide = w.themed_slide(context)
    fg = context.theme.text
    show_change = config_flag(context, "showChange", True)
    w.add_title(context, slide, context.data["title"])
    rows = context.data["quotes"]
    width, height = context.size
    items = []
    for q in rows:
        change = q["change"] or 0.0
        pct = f" ({q['pct']:+.2f}%)" if q["pct"] is not None else ""
        color = w.on_background(context, w.GREEN if change >= 0 else w.RED)
        items.append({"name": f"{q['symbol']} {q['name']}", "price": f"{q['price']:.2f} {q['currency']}",
                      "change": f"{change:+.2f}{pct}", "color": color,
                      "trend": "trending_up" if change >= 0 else "trending_down"})
    if w.stacked(context) or width < 1.5 * height:
        entries = [w.entry(context, item["name"], fg, bold=True,
                           meta=item["price"] + (f"\n{item['change']}" if show_change else ""),  # a line each
                           meta_color=item["color"] if show_change else fg,
                           marker=item["trend"] if show_change else None, marker_color=item["color"])
                   for item in items]
        w.body_column(context, slide, entries)
        return slide
    pitch = min(0.64 / len(rows), 0.16)
    top = 0.29 + (0.64 - pitch * len(rows)) / 2
    for i, item in enumerate(items):
        row = {"size_hint_y": pitch, "pos_hint": {"top": 1 - top - i * pitch}}

        def cell(widget: Any, x: float) -> Any:
            widget.pos_hint = {**row["pos_hint"], "x": x}
            slide.add_widget(widget)
            return widget

        name = cell(w.text_box(context, item["name"], "body", fg, bold=True, halign="left", max_lines=2,
                               size_hint=(0.34, pitch)), 0.08)
        name.role = "primary"
        slide.animate(cell(w.text_box(context, item["price"], "body", fg, halign="right", max_lines=1,
                                      size_hint=(0.2, pitch)), 0.43))  # one line: scrolls below its minimum
        if show_change:
            cell(w.icon(item["trend"], context.type_px("body"), item["color"], size_hint=(0.05, pitch)), 0.65)
            slide.animate(cell(w.text_box(context, item["change"], "body", item["color"], halign="right",
                                          max_lines=1, size_hint=(0.23, pitch)), 0.7))
    return slide


def _prepare_quote(context: RenderContext) -> Any:
    symbol = config_text(context, "symbol")
    if not symbol:
        return None
    rows = [r for r in context.host.db.StockQuote.select()
            if r.symbol.upper() == symbol.upper() or r.symbol_id == symbol]
    if not rows:
        return None
    r = rows[0]
    return {"symbol": r.symbol, "name": r.display_name, "price": r.price, "change": r.change or 0.0,
            "currency": r.currency}


@renderer(prepare=_prepare_quote)
def stock_quote(context: RenderContext) -> Any:
    w = _w()
    q = context.data
    layer, box = w.panel(context, (0.26, 0.16))
    show_change = config_flag(context, "show_change", True)
    color = context.theme.text if not show_change else w.on_panel(context, w.GREEN if q["change"] >= 0 else w.RED)
    change = f"\n{q['change']:+.2f}" if show_change else ""
    box.add_widget(w.label(f"{q['symbol']}  {q['price']:.2f} {q['currency']}{change}",
                           context.font(46), color, bold=True, halign="center", size_hint=(1, 1),
                           pos_hint={"x": 0, "y": 0}))
    return layer
