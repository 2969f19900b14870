"""The 18 builtin overlay types of spec 2.3 with their ``config_json`` schemas.

Overlay config keys are snake_case, like the ``birthday_confetti`` keys the interface
fixes. Phrase-based overlays keep their phrases in ``messages``. ``renderer`` stays
``None`` here; the display attaches renderers to these ids. ``TYPES`` is the list
``register_overlay_types`` returns.
"""
from __future__ import annotations

from hookspecs import OverlayType
from builtin_plugins.common.jsonschema_parts import (
    BLOB_KEY,
    DATE_ORDER,
    HEX_COLOR,
    MESSAGES,
    SLUG,
    TIME_ZONE,
    array,
    boolean,
    enum,
    integer,
    number,
    obj,
    text,
)
from builtin_plugins.screens.types import TIME_FORMAT_PRESET

POSITION = enum("top_left", "top_right", "bottom_left", "bottom_right", "center")
COLORS = array(HEX_COLOR, 12, unique=False)
DENSITY = number(0.1, 5)
SPEED = number(0.1, 5)
OPACITY = number(0, 1)
SCALE = number(0.25, 4)
INTERVAL = number(1, 3600)

TYPES: list[OverlayType] = [
    OverlayType(
        id="shape_rain",
        label="Shape rain",
        description="Falling shapes (legacy hearts_rain becomes shape_rain with shapes [\"heart\"]).",
        config_schema=obj("shape_rain", {
            "shapes": array(enum("heart", "star", "circle", "square", "snowflake", "leaf"), 6, min_items=1),
            "colors": COLORS,
            "density": DENSITY,
            "fall_speed": SPEED,
            "size": SCALE,
            "opacity": OPACITY,
            "messages": MESSAGES,
            "message_interval_sec": INTERVAL,
        }),
        example_config={"shapes": ["heart"], "colors": ["#ff4d6d", "#ffb3c1"], "density": 1.2,
                        "messages": ["Happy Valentine's Day"]},
    ),
    OverlayType(
        id="birthday_confetti",
        label="Birthday confetti",
        description="Confetti plus optional messages.",
        config_schema=obj("birthday_confetti", {
            "messages": MESSAGES,
            "shapes": array(enum("rect", "circle", "mix"), 3, min_items=1),
            "colors": COLORS,
            "density": DENSITY,
            "message_interval_sec": INTERVAL,
            "fall_speed": SPEED,
            "opacity": OPACITY,
        }),
        example_config={"messages": ["Happy birthday, Sam!"], "shapes": ["mix"],
                        "colors": ["#f94144", "#f9c74f", "#90be6d", "#577590"], "density": 1.0,
                        "message_interval_sec": 8, "fall_speed": 1.0, "opacity": 0.9},
    ),
    OverlayType(
        id="bouncing_message",
        label="Bouncing message",
        description="A phrase bouncing around the screen.",
        config_schema=obj("bouncing_message", {
            "messages": MESSAGES,
            "message_interval_sec": INTERVAL,
            "speed": SPEED,
            "font_scale": SCALE,
            "color": HEX_COLOR,
            "opacity": OPACITY,
        }),
        example_config={"messages": ["Welcome, visitors!"], "speed": 1.0, "color": "#ffffff"},
    ),
    OverlayType(
        id="falling_images",
        label="Falling images",
        description="Uploaded images drifting down.",
        config_schema=obj("falling_images", {
            "image_blob_keys": array(BLOB_KEY, 50, min_items=1),
            "density": DENSITY,
            "fall_speed": SPEED,
            "size": SCALE,
            "opacity": OPACITY,
        }, required=("image_blob_keys",)),
        example_config={"image_blob_keys": ["overlays/pumpkin.png"], "density": 0.8, "size": 1.0},
    ),
    OverlayType(
        id="matrix_rain",
        label="Matrix rain",
        description="Green character columns.",
        config_schema=obj("matrix_rain", {
            "color": HEX_COLOR,
            "characters": text(200, 1),
            "density": DENSITY,
            "speed": SPEED,
            "opacity": OPACITY,
        }),
        example_config={"color": "#00ff41", "density": 1.0, "opacity": 0.6},
    ),
    OverlayType(
        id="edge_glow",
        label="Edge glow",
        description="A pulsing edge vignette, for alarms.",
        config_schema=obj("edge_glow", {
            "color": HEX_COLOR,
            "pulse_seconds": number(0.2, 30),
            "thickness": number(0.01, 0.5),
            "opacity": OPACITY,
            "messages": MESSAGES,
        }),
        example_config={"color": "#ff0000", "pulse_seconds": 1.5, "thickness": 0.08},
    ),
    OverlayType(
        id="floating_balloons",
        label="Floating balloons",
        description="Balloons rising from the bottom.",
        config_schema=obj("floating_balloons", {
            "colors": COLORS,
            "density": DENSITY,
            "rise_speed": SPEED,
            "opacity": OPACITY,
            "messages": MESSAGES,
            "message_interval_sec": INTERVAL,
        }),
        example_config={"colors": ["#e63946", "#457b9d"], "density": 0.7, "messages": ["Congratulations!"]},
    ),
    OverlayType(
        id="cloud_drift",
        label="Cloud drift",
        description="Clouds drifting across the screen.",
        config_schema=obj("cloud_drift", {
            "density": DENSITY,
            "speed": SPEED,
            "tint": HEX_COLOR,
            "opacity": OPACITY,
        }),
        example_config={"density": 0.5, "speed": 0.3, "opacity": 0.4},
    ),
    OverlayType(
        id="static_image",
        label="Static image",
        description="A full-screen image.",
        config_schema=obj("static_image", {
            "image_blob_key": BLOB_KEY,
            "fit": enum("contain", "cover"),
            "opacity": OPACITY,
        }, required=("image_blob_key",)),
        example_config={"image_blob_key": "overlays/frame.png", "fit": "cover", "opacity": 1.0},
    ),
    OverlayType(
        id="digital_clock",
        label="Digital clock",
        description="The time in a corner (display timezone when time_zone is omitted).",
        config_schema=obj("digital_clock", {
            "position": POSITION,
            "time_zone": TIME_ZONE,
            "time_format_preset": TIME_FORMAT_PRESET,
            "date_order": DATE_ORDER,
            "show_date": boolean(),
            "scale": SCALE,
            "opacity": OPACITY,
        }),
        example_config={"position": "top_right", "time_format_preset": "24h_hm", "show_date": True},
    ),
    OverlayType(
        id="analog_clock",
        label="Analog clock",
        description="An analog clock face.",
        config_schema=obj("analog_clock", {
            "position": POSITION,
            "time_zone": TIME_ZONE,
            "size": number(0.05, 1),
            "show_seconds": boolean(),
            "opacity": OPACITY,
        }),
        example_config={"position": "bottom_right", "size": 0.2, "show_seconds": True},
    ),
    OverlayType(
        id="calendar_month",
        label="Month calendar",
        description="A small month calendar.",
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
        label="Upcoming events",
        description="A list of upcoming calendar events.",
        config_schema=obj("calendar_upcoming", {
            "position": POSITION,
            "category_ids": array(SLUG, 20),
            "days_ahead": integer(1, 60),
            "max_events": integer(1, 20),
            "opacity": OPACITY,
        }),
        example_config={"position": "bottom_left", "days_ahead": 3, "max_events": 4},
    ),
    OverlayType(
        id="stock_quote",
        label="Stock quote",
        description="One symbol highlighted.",
        config_schema=obj("stock_quote", {
            "symbol": {"type": "string", "pattern": "^[A-Za-z0-9.^=\\-]{1,32}$"},
            "position": POSITION,
            "show_change": boolean(),
            "opacity": OPACITY,
        }, required=("symbol",)),
        example_config={"symbol": "AAPL", "position": "top_right", "show_change": True},
    ),
    OverlayType(
        id="photo_slideshow",
        label="Photo slideshow",
        description="Rotating photos of a content category in a frame.",
        config_schema=obj("photo_slideshow", {
            "category": SLUG,
            "interval_sec": number(2, 600),
            "position": POSITION,
            "size": number(0.05, 1),
            "opacity": OPACITY,
        }),
        example_config={"category": "photos", "interval_sec": 10, "position": "bottom_right", "size": 0.3},
    ),
    OverlayType(
        id="qr_code",
        label="QR code",
        description="A QR code of the configured payload.",
        config_schema=obj("qr_code", {
            "payload": text(2048, 1),
            "caption": text(200),
            "position": POSITION,
            "size": number(0.05, 0.5),
        }, required=("payload",)),
        example_config={"payload": "https://example.org/feedback", "caption": "Tell us", "position": "bottom_right"},
    ),
    OverlayType(
        id="plugin_template",
        label="Plugin celebration layer",
        description="A plugin-drawn celebration layer from a template.",
        config_schema=obj("plugin_template", {
            "plugin_id": SLUG,
            "template": text(200, 1),
            "data": {"type": "object", "maxProperties": 100},
            "messages": MESSAGES,
        }, required=("plugin_id", "template")),
        example_config={"plugin_id": "team-wins", "template": "trophy", "messages": ["We shipped it!"]},
    ),
    OverlayType(
        id="plugin_web",
        label="Plugin web view",
        description="A plugin's web page shown as a view-only overlay.",
        config_schema=obj("plugin_web", {
            "plugin_id": SLUG,
            "url": {"type": "string", "maxLength": 2048, "pattern": "^https?://[^\\s]+$"},
            "position": enum("top_left", "top_right", "bottom_left", "bottom_right", "center", "fullscreen"),
            "size": number(0.05, 1),
            "refresh_seconds": integer(0, 86400),
            "opacity": OPACITY,
        }, required=("plugin_id", "url")),
        example_config={"plugin_id": "status-board", "url": "http://127.0.0.1:9100/overlay",
                        "position": "fullscreen"},
    ),
]
