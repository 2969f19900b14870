"""Home Assistant: the ``home_assistant`` collector (``collector.py``), which turns entity
states into plugin ticker lines (key-value ``ticker.marquee.home_assistant``) and alerts."""
from __future__ import annotations

from builtin_plugins.home_assistant import collector
from hookspecs import IntegrationType, hookimpl


@hookimpl
def register_integration_types() -> list[IntegrationType]:
    return [collector.INTEGRATION_TYPE]
