"""Decorative overlay effects: shape rain, birthday confetti, a bouncing message, falling images,
matrix rain, an edge glow, floating balloons and drifting clouds (spec 2.3). Their config keys
are snake_case, like the ``birthday_confetti`` keys the interface fixes; phrase-based effects
keep their phrases in ``messages``."""
from __future__ import annotations


from hookspecs import Feature, OverlayType
from hookspecs.schema import (
    BLOB_KEY,
    COLORS,
    DENSITY,
    HEX_COLOR,
    INTERVAL,
    MESSAGES,
    OPACITY,
    SCALE,
    SPEED,
    array,
    enum,
    number,
    obj,
    text,
)

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="shape_rain",
        label="Shape rain",
        description="Falling shapes (legacy hearts_rain becomes shape_rain with shapes [\"heart\"]).",
        renderer="builtin_plugins.effects.display:shape_rain",
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
        renderer="builtin_plugins.effects.display:birthday_confetti",
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
        renderer="builtin_plugins.effects.display:bouncing_message",
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
        renderer="builtin_plugins.effects.display:falling_images",
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
        renderer="builtin_plugins.effects.display:matrix_rain",
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
        renderer="builtin_plugins.effects.display:edge_glow",
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
        renderer="builtin_plugins.effects.display:floating_balloons",
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
        renderer="builtin_plugins.effects.display:cloud_drift",
        config_schema=obj("cloud_drift", {
            "density": DENSITY,
            "speed": SPEED,
            "tint": HEX_COLOR,
            "opacity": OPACITY,
        }),
        example_config={"density": 0.5, "speed": 0.3, "opacity": 0.4},
    ),
]


FEATURE = Feature(
    overlay_types=OVERLAY_TYPES,
    samples="builtin_plugins.effects.samples:write",
)
