"""Home Assistant: the ``home_assistant`` collector (``collector.py``, declared in ``types.json``),
which turns entity states into plugin ticker lines (key-value ``ticker.marquee.home_assistant``)
and alerts."""
from __future__ import annotations

from hookspecs import Feature
from hookspecs.catalog import load_types

TYPES = load_types(__name__)
FEATURE = Feature(
    types=TYPES,
)
