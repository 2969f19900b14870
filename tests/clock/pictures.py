"""Helpers of the clock tests on canvas pictures: a calendar overlay row, whether one rectangle
holds another, and the box of what a picture draws."""
from __future__ import annotations

import datetime as dt

from PIL import Image

from hookspecs.render import Rect


def calendar(position: str, day: dt.date | None = None) -> dict:
    """A calendar_month overlay in the corner ``position``, shown on ``day`` (today by default)."""
    day = day or dt.datetime.now(dt.timezone.utc).date()
    return {"id": f"o_calendar_{position}", "enabled": True, "overlay_type": "calendar_month",
            "config_json": {"position": position}, "start_month": day.month, "start_day": day.day}


def holds(area: Rect, other: Rect, slack: float = 1.0) -> bool:
    """Whether ``other`` lies inside ``area`` (give or take ``slack`` pixels)."""
    return (other.x >= area.x - slack and other.y >= area.y - slack and other.right <= area.right + slack
            and other.top <= area.top + slack)


def drawn_box(image: Image.Image, mask: Image.Image | None = None) -> Rect:
    """The bounding box (window pixels) of what ``mask`` (else ``image``) has that is not black."""
    bbox = (mask or image).getbbox()
    assert bbox is not None, "nothing drawn"
    left, upper, right, lower = bbox
    return Rect(left, image.height - lower, right - left, lower - upper)
