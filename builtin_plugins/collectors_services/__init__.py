"""Service collectors: stock_finnhub, home_assistant, plugin_http."""

from __future__ import annotations

from hookspecs import hookimpl
from builtin_plugins.collectors_services import finnhub, home_assistant, plugin_http


@hookimpl
def register_integration_types() -> list:
    return [finnhub.INTEGRATION_TYPE, home_assistant.INTEGRATION_TYPE, plugin_http.INTEGRATION_TYPE]
