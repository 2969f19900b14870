"""Clock: the clock slide, the digital and analog clock overlays and the date-and-time ticker tape.

Omitted keys follow the display settings (timezone, 12h/24h, date order); the formatting is
the shared one of ``hookspecs.formatting``.
"""
from __future__ import annotations

from builtin_plugins.clock import items
from hookspecs import Feature, OverlayType, ScreenType, TickerType
from hookspecs.formatting import TIME_PRESETS
from hookspecs.schema import (
    DATE_ORDER,
    OPACITY,
    POSITION,
    SCALE,
    TIME_FORMAT_PRESET,
    TIME_ZONE,
    boolean,
    enum,
    number,
    obj,
    text,
)

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="clock",
        label="Clock",
        description="Large time and date in a time zone (display timezone when omitted).",
        renderer="builtin_plugins.clock.display:clock",
        config_schema=obj("clock", {
            "timeZone": TIME_ZONE,
            "timeFormatPreset": TIME_FORMAT_PRESET,
            "dateOrder": DATE_ORDER,
            "showDate": boolean(),
            "label": text(100),
            "style": enum("digital", "analog"),
        }),
        example_config={"timeZone": "Europe/Berlin", "timeFormatPreset": "24h_hm", "showDate": True,
                        "label": "Berlin"},
    ),
]

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="digital_clock",
        zone="top_right",
        label="Digital clock",
        description="The time in a corner (display timezone when time_zone is omitted).",
        renderer="builtin_plugins.clock.display:digital_clock",
        config_schema=obj("digital_clock", {
            "position": POSITION,
            "time_zone": TIME_ZONE,
            "time_format_preset": {"enum": list(TIME_PRESETS)},
            "date_order": DATE_ORDER,
            "show_date": boolean(),
            "scale": SCALE,
            "opacity": OPACITY,
        }),
        example_config={"position": "top_right", "time_format_preset": "24h_hm", "show_date": True},
    ),
    OverlayType(
        id="analog_clock",
        zone="top_right",
        label="Analog clock",
        description="An analog clock face.",
        renderer="builtin_plugins.clock.display:analog_clock",
        config_schema=obj("analog_clock", {
            "position": POSITION,
            "time_zone": TIME_ZONE,
            "size": number(0.05, 1),
            "show_seconds": boolean(),
            "opacity": OPACITY,
        }),
        example_config={"position": "bottom_right", "size": 0.2, "show_seconds": True},
    ),
]

TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="time",
        label="Date and time",
        description="Date and time; omitted keys follow controller_date_order, controller_time_format "
                    "and display_timezone; showDate false shows the time alone.",
        config_schema=obj("time", {
            "dateOrder": DATE_ORDER,
            "timeFormatPreset": {"enum": list(TIME_PRESETS)},
            "timeZone": TIME_ZONE,
            "labelPrefix": text(100),
            "showDate": boolean(),  # beyond the spec: false shows the time alone (default true)
        }),
        example_config={"dateOrder": "dmy", "timeFormatPreset": "24h_hms", "timeZone": "Europe/Berlin",
                        "labelPrefix": "Berlin"},
        build_items=items.time_items,
        reads=(),
        refresh_seconds=1.0,  # on screen, the time is rebuilt every second
    ),
]


FEATURE = Feature(
    screen_types=SCREEN_TYPES,
    overlay_types=OVERLAY_TYPES,
    ticker_types=TICKER_TYPES,
)
