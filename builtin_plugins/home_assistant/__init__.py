"""Home Assistant: the ``home_assistant`` collector (``collector.py``), which turns entity
states into plugin ticker lines (key-value ``ticker.marquee.home_assistant``) and alerts."""
from __future__ import annotations

from builtin_plugins.home_assistant import collector
from hookspecs import Feature


FEATURE = Feature(
    integration_types=[collector.INTEGRATION_TYPE],
)
