"""The photo and video slide types and the photo slideshow overlay: schemas and examples."""
from __future__ import annotations

from hookspecs import OverlayType, ScreenType
from hookspecs.schema import OPACITY, POSITION, SLUG, boolean, enum, integer, number, obj

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="photo",
        label="Photo",
        description="A photo from the catalog, by content category.",
        renderer="builtin_plugins.media.display:photo",
        config_schema=obj("photo", {
            "category": SLUG,
            "fit": enum("contain", "cover"),
            "showAttribution": boolean(),
            "kenBurns": boolean(),
        }),
        example_config={"category": "photos", "fit": "cover", "showAttribution": True},
    ),
    ScreenType(
        id="video",
        label="Video",
        description="A video from the catalog, by content category.",
        renderer="builtin_plugins.media.display:video",
        config_schema=obj("video", {
            "category": SLUG,
            "muted": boolean(),
            "maxDurationSeconds": integer(1, 3600),
            "showAttribution": boolean(),
        }),
        example_config={"category": "videos", "muted": True, "maxDurationSeconds": 60},
    ),
]

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="photo_slideshow",
        zone="bottom_right",
        label="Photo slideshow",
        description="Rotating photos of a content category in a frame.",
        renderer="builtin_plugins.media.display:photo_slideshow",
        config_schema=obj("photo_slideshow", {
            "category": SLUG,
            "interval_sec": number(2, 600),
            "position": POSITION,
            "size": number(0.05, 1),
            "opacity": OPACITY,
        }),
        example_config={"category": "photos", "interval_sec": 10, "position": "bottom_right", "size": 0.3},
    ),
]
