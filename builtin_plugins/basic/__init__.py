"""Basic types: the message, QR code and controller invite slides, the QR code and static image
overlays, and the static text ticker tape. They read no table."""
from __future__ import annotations

from typing import Any

from hookspecs import Feature, OverlayType, ScreenType, Setting, TickerType
from hookspecs.schema import BLOB_KEY, HEX_COLOR, OPACITY, POSITION, boolean, enum, number, obj, text

SCREEN_TYPES: list[ScreenType] = [
    ScreenType(
        id="message",
        label="Message",
        description="A static title and body of text.",
        renderer="builtin_plugins.basic.display:message",
        config_schema=obj("message", {
            "title": text(200),
            "body": text(2000, 1),
            "textAlign": enum("left", "center", "right"),
            "backgroundColor": HEX_COLOR,
            "textColor": HEX_COLOR,
        }, required=("body",)),
        example_config={"title": "Welcome", "body": "Lunch is served in the atrium at noon.",
                        "textAlign": "center"},
    ),
    ScreenType(
        id="qr_code",
        label="QR code",
        description="A QR code of a payload, with an optional caption.",
        renderer="builtin_plugins.basic.display:qr_code",
        config_schema=obj("qr_code", {
            "payload": text(2048, 1),
            "caption": text(200),
            "foreground": HEX_COLOR,
            "background": HEX_COLOR,
        }, required=("payload",)),
        example_config={"payload": "https://example.org/menu", "caption": "Today's menu"},
    ),
    ScreenType(
        id="controller_invite",
        label="Controller invite",
        description="A QR code inviting people to the controller app (SVC_DISPLAY_CONTROLLER_PUBLIC_URL).",
        renderer="builtin_plugins.basic.display:controller_invite",
        config_schema=obj("controller_invite", {
            "headline": text(200),
            "showUrl": boolean(),
            "urlOverride": {"type": "string", "maxLength": 2048, "pattern": "^https?://[^\\s]+$"},
        }),
        example_config={"headline": "Control this screen from your phone", "showUrl": True},
    ),
]

OVERLAY_TYPES: list[OverlayType] = [
    OverlayType(
        id="static_image",
        label="Static image",
        description="A full-screen image.",
        renderer="builtin_plugins.basic.display:static_image",
        config_schema=obj("static_image", {
            "image_blob_key": BLOB_KEY,
            "fit": enum("contain", "cover"),
            "opacity": OPACITY,
        }, required=("image_blob_key",)),
        example_config={"image_blob_key": "overlays/frame.png", "fit": "cover", "opacity": 1.0},
    ),
    OverlayType(
        id="qr_code",
        zone="bottom_right",
        label="QR code",
        description="A QR code of the configured payload.",
        renderer="builtin_plugins.basic.display:qr_code_overlay",
        config_schema=obj("qr_code", {
            "payload": text(2048, 1),
            "caption": text(200),
            "position": POSITION,
            "size": number(0.05, 0.5),
        }, required=("payload",)),
        example_config={"payload": "https://example.org/feedback", "caption": "Tell us",
                        "position": "bottom_right"},
    ),
]


def text_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    text = ((tape.config_json or {}).get("text") or "").strip()
    return [text] if text else []


TICKER_TYPES: list[TickerType] = [
    TickerType(
        id="text",
        label="Static text",
        description="One fixed text.",
        config_schema=obj("text", {"text": text(500, 1)}, required=("text",)),
        example_config={"text": "Welcome to the lobby"},
        build_items=text_items,
        reads=(),
    ),
]


FEATURE = Feature(
    settings=[
          Setting("SVC_DISPLAY_CONTROLLER_PUBLIC_URL", str, None, "URL of the controller app (invite QR code)",
                  schemes=("http", "https")),
      ],
    screen_types=SCREEN_TYPES,
    overlay_types=OVERLAY_TYPES,
    ticker_types=TICKER_TYPES,
    samples="builtin_plugins.basic.samples:write",
)
