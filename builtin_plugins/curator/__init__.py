"""The curator: content categories, configurations with schedule rules and layered members.

See ``docs/content.md`` for the layer semantics, the rule predicates and the runtime state.
"""
from __future__ import annotations

from typing import Any

from hookspecs import hookimpl
from builtin_plugins.curator import categories


@hookimpl
def register_entities(db: Any) -> None:
    categories.define_entities(db)


@hookimpl
def register_migrations() -> list:
    return list(categories.MIGRATIONS)


@hookimpl
def register_routes(host: Any) -> list:
    return categories.routes(host)
