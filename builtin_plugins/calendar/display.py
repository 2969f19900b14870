"""The calendar types' drawing (Kivy-only, imported when a canvas starts): the ``calendar_agenda``
and ``calendar_month`` slides and the ``calendar_month`` and ``calendar_upcoming`` overlays,
from ``CalendarEvent`` rows. The slides' config keys are camelCase, the overlays' snake_case
(those of ``builtin_plugins/calendar/types.json``); the month grid and the event line are shared."""
from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

from svc_host.kit.contrast import legible, readable_on
from svc_host.kit.formatting import MONTHS, formats
from hookspecs.render import RenderContext, renderer
from svc_host.kit.display import category_label, config_flag, config_number, config_strings, config_text, slide_title
from svc_host.kit.display import widgets as _w

AGENDA_KEYS = ("daysAhead", "maxEvents", "categoryIds", "showLocation")  # the slide's
UPCOMING_KEYS = ("days_ahead", "max_events", "category_ids", "show_location")  # the overlay's


def _events(context: RenderContext, start_ms: int, end_ms: int, limit: int, key: str) -> list:
    """Events overlapping [start, end): of the categories in config ``key`` (and ``data_key``)."""
    query = context.host.db.CalendarEvent.select(lambda e: e.end_ms >= start_ms and e.start_ms < end_ms)
    categories = set(config_strings(context, key))
    if context.row.get("data_key"):
        categories.add(context.row["data_key"])
    rows = list(query.order_by(lambda e: e.start_ms))
    if categories:
        rows = [e for e in rows
                if e.category_id in categories or any(c.category_id in categories for c in e.categories)]
    return rows[:limit]


def _agenda(context: RenderContext, keys: tuple[str, str, str, str]) -> Any:
    """Upcoming events; ``keys`` names the config keys (days ahead, max events, categories,
    show location)."""
    now = context.now_ms()
    days = int(config_number(context, keys[0], 14, 1, 60))
    limit = int(config_number(context, keys[1], 8, 1, 50))
    rows = _events(context, now, now + days * 86_400_000, limit, keys[2])
    if not rows:
        return None
    show_location = config_flag(context, keys[3], True)
    return [{"title": e.title, "start_ms": e.start_ms, "end_ms": e.end_ms, "all_day": e.all_day,
             "location": e.location if show_location else ""} for e in rows]


def _when(context: RenderContext, event: dict) -> str:
    """``Today 14:00–15:00 · Room 2``, ``Now · until 15:00`` (the display's friendly span) and the place."""
    when = formats(context).format_span(event["start_ms"], event.get("end_ms"), event["all_day"])
    return f"{when}  \u00b7 {event['location']}" if event.get("location") else when


def _event_line(context: RenderContext, event: dict) -> str:
    return f"{_when(context, event)}   {event['title']}"


def _month(context: RenderContext, key: str) -> Any:
    """This month in the display zone: the days with events of the categories in ``key``."""
    today = formats(context).now().date()
    first = dt.datetime(today.year, today.month, 1, tzinfo=formats(context).tzinfo())
    last_day = calendar.monthrange(today.year, today.month)[1]
    end = first + dt.timedelta(days=last_day)
    rows = _events(context, int(first.timestamp() * 1000), int(end.timestamp() * 1000), 1000, key)
    marked = set()
    for e in rows:
        day = dt.datetime.fromtimestamp(e.start_ms / 1000, formats(context).tzinfo()).date()
        if day.month == today.month:
            marked.add(day.day)
    return {"year": today.year, "month": today.month, "today": today.day, "marked": sorted(marked)}


def month_grid(context: RenderContext, data: dict, font_px: float, week_starts_on: str = "monday",
               highlight_today: bool = True, on_panel: bool = False, minimum: float | None = None) -> Any:
    """A month calendar widget: weekday names, today highlighted, days with events marked; its
    accent colours made legible on an overlay panel when ``on_panel``. Its cells follow the text rule
    together (:class:`~svc_host.kit.display.text.SameSize`): one size for every cell, as large as the
    narrowest cell holds, down to ``minimum`` (the body's on this screen by default); below it the
    weekday names become their initials (``M T W``)."""
    from kivy.uix.gridlayout import GridLayout

    w = _w()
    grid = GridLayout(cols=7, spacing=2)
    fg = context.theme.text
    accent = (lambda c: w.on_panel(context, c)) if on_panel else (lambda c: c)
    least = w.minimum_px(context, "body") if minimum is None else minimum
    size = context.font(font_px)
    first = 6 if week_starts_on == "sunday" else 0
    names = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")
    cells = []
    for name in names[first:] + names[:first]:
        cell = w.label(name, size, accent(context.theme.accents[1]), bold=True, halign="center", minimum=least)
        cell.initial = name[0]
        cells.append(cell)
        grid.add_widget(cell)
    for week in calendar.Calendar(firstweekday=first).monthdayscalendar(data["year"], data["month"]):
        for day in week:
            if highlight_today and day == data["today"]:
                holder = w.Slide()
                whole = {"size_hint": (1, 1), "pos_hint": {"x": 0, "y": 0}}
                holder.add_widget(w.Backdrop([context.theme.accents[0]], **whole))
                cell = w.label(str(day), size, readable_on(context.theme.accents[0]), bold=True, halign="center",
                               minimum=least, **whole)
                holder.add_widget(cell)
                grid.add_widget(holder)
            else:
                color = accent(context.theme.accents[2]) if day in data["marked"] else fg
                cell = w.label(str(day) if day else "", size, color, bold=day in data["marked"], halign="center",
                               minimum=least)
                grid.add_widget(cell)
            cells.append(cell)
    grid.same_size = w.SameSize(cells, lambda cell: getattr(cell, "initial", None))
    return grid


# -- slides -------------------------------------------------------------------------------------
def _prepare_agenda(context: RenderContext) -> Any:
    events = _agenda(context, AGENDA_KEYS)
    if events is None:
        return None
    label = category_label(context, context.row.get("data_key") or next(iter(config_strings(context, "categoryIds")), ""))
    return {"title": slide_title(context, agenda_title(label), "Coming up"), "events": events}


def agenda_title(label: str) -> str:
    """``<label> calendar``, or the label alone when it says calendar already (the reserved category
    "Calendar" is not "Calendar calendar")."""
    if not label:
        return ""
    return label if "calendar" in label.lower().split() else f"{label} calendar"


@renderer(prepare=_prepare_agenda)
def calendar_agenda(context: RenderContext) -> Any:
    """An event an item: when and where (``Today 14:00–15:00 · Room 2``) over its title; the running
    one marked ``Now`` on a highlight; as many as fit, soonest first."""
    w = _w()
    theme = context.theme
    slide = w.themed_slide(context)
    w.add_title(context, slide, context.data["title"])
    entries = []
    for event in context.data["events"]:
        running = formats(context).is_running(event["start_ms"], event.get("end_ms"))
        fg = theme.primary_fg if running else theme.text
        accent = legible(theme.accents[0], [theme.primary_bg]) if running else theme.accents[0]
        item = w.entry(context, event["title"], fg, meta=_when(context, event), meta_color=accent,
                       highlight=theme.primary_bg if running else None, meta_above=True)
        entries.append(item)
    w.body_column(context, slide, entries)
    return slide


def _prepare_month(context: RenderContext) -> Any:
    return _month(context, "categoryIds")


@renderer(prepare=_prepare_month)
def calendar_month(context: RenderContext) -> Any:
    w = _w()
    data = context.data
    slide = w.themed_slide(context)
    title = f"{MONTHS[data['month'] - 1]} {data['year']}"
    w.add_title(context, slide, slide_title(context, title), box=(0.08, 0.04, 0.86, 0.12))
    grid = month_grid(context, data, context.theme.type_scale("body"), config_text(context, "weekStartsOn", "monday"),
                      config_flag(context, "highlightToday", True))
    grid.role = "primary"
    for cell in grid.walk(restrict=True):  # the days are the slide's primary text
        if cell is not grid and hasattr(cell, "font_size"):
            cell.role = "primary"
    grid.size_hint = (0.84, 0.78)
    grid.pos_hint = {"x": 0.08, "y": 0.04}
    slide.add_widget(grid)
    return slide


# -- overlays -----------------------------------------------------------------------------------
def _prepare_month_overlay(context: RenderContext) -> Any:
    return _month(context, "category_ids")


@renderer(prepare=_prepare_month_overlay)
def calendar_month_overlay(context: RenderContext) -> Any:
    scale = config_number(context, "scale", 1.0, 0.25, 4)
    layer, box = _w().panel(context, (0.3, 0.42), scale=scale)
    grid = month_grid(context, context.data, 30 * min(scale, 2.2),
                      config_text(context, "week_starts_on", "monday"), on_panel=True,
                      minimum=_w().minimum_px(context, "caption"))
    grid.size_hint = (0.94, 0.94)
    grid.pos_hint = {"center_x": 0.5, "center_y": 0.5}
    box.add_widget(grid)
    return layer


def _prepare_upcoming(context: RenderContext) -> Any:
    return _agenda(context, UPCOMING_KEYS)


@renderer(prepare=_prepare_upcoming)
def calendar_upcoming(context: RenderContext) -> Any:
    w = _w()
    layer, box = w.panel(context, (0.4, 0.4))
    text = "\n".join(_event_line(context, e) for e in context.data)
    box.add_widget(w.label(text, context.font(30), context.theme.text, valign="top", size_hint=(0.92, 0.9),
                           pos_hint={"center_x": 0.5, "center_y": 0.5}))
    return layer
