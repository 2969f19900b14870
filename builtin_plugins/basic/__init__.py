"""Basic types: the message, QR code and controller invite slides, the QR code and static image
overlays, and the static text ticker tape (declared in ``types.json``; the tape's items come from
:func:`text_items`). They read no table."""
from __future__ import annotations

from typing import Any

from hookspecs import Feature, Setting
from hookspecs.catalog import load_types


def text_items(host: Any, tape: Any, now_ms: int) -> list[str]:
    """The ``text`` tape's one item: its configured text (none when blank)."""
    text = ((tape.config_json or {}).get("text") or "").strip()
    return [text] if text else []


TYPES = load_types(__name__)
FEATURE = Feature(
    settings=[
        Setting("SVC_DISPLAY_CONTROLLER_PUBLIC_URL", str, None, "URL of the controller app (invite QR code)",
                schemes=("http", "https")),
    ],
    types=TYPES,
    samples="builtin_plugins.basic.samples:write",
)
