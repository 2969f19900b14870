"""The calendar slide and overlay types: their ``config_json`` schemas and examples."""
from __future__ import annotations

from hookspecs import OverlayType, ScreenType
from hookspecs.schema import OPACITY, POSITION, SCALE, SLUG, array, boolean, enum, integer, obj

CATEGORY_IDS = array(SLUG, 20)

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="calendar_agenda",
        label="Calendar agenda",
        description="Upcoming calendar events as a list.",
        renderer="builtin_plugins.calendar.display:calendar_agenda",
        config_schema=obj("calendar_agenda", {
            "categoryIds": CATEGORY_IDS,
            "daysAhead": integer(1, 60),
            "maxEvents": integer(1, 50),
            "showLocation": boolean(),
        }),
        example_config={"categoryIds": ["family"], "daysAhead": 7, "maxEvents": 8, "showLocation": True},
    ),
    ScreenType(
        id="calendar_month",
        label="Calendar month",
        description="A month grid with event markers.",
        renderer="builtin_plugins.calendar.display:calendar_month",
        config_schema=obj("calendar_month", {
            "categoryIds": CATEGORY_IDS,
            "weekStartsOn": enum("monday", "sunday"),
            "highlightToday": boolean(),
        }),
        example_config={"weekStartsOn": "monday", "highlightToday": True},
    ),
]

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="calendar_month",
        zone="top_right",
        label="Month calendar",
        description="A small month calendar.",
        renderer="builtin_plugins.calendar.display:calendar_month_overlay",
        config_schema=obj("calendar_month", {
            "position": POSITION,
            "category_ids": array(SLUG, 20),
            "week_starts_on": enum("monday", "sunday"),
            "scale": SCALE,
            "opacity": OPACITY,
        }),
        example_config={"position": "top_left", "week_starts_on": "monday"},
    ),
    OverlayType(
        id="calendar_upcoming",
        zone="top_right",
        label="Upcoming events",
        description="A list of upcoming calendar events.",
        renderer="builtin_plugins.calendar.display:calendar_upcoming",
        config_schema=obj("calendar_upcoming", {
            "position": POSITION,
            "category_ids": array(SLUG, 20),
            "days_ahead": integer(1, 60),
            "max_events": integer(1, 20),
            "opacity": OPACITY,
        }),
        example_config={"position": "bottom_left", "days_ahead": 3, "max_events": 4},
    ),
]
