"""The content catalog (spec 2.8, 4.6): paginated, filtered, read-only lists of content.

One list per :class:`hookspecs.ContentList` the feature plugins contribute
(``register_content_lists``), at ``GET /v1/catalog/<path>``; the catalog names no feature's
table. Each page is one SQL statement (``queries.CatalogQuery``) so that the same filter
runs on SQLite and PostgreSQL, and a list with a search index uses it.
"""
from __future__ import annotations

from typing import Any

from hookspecs import Feature, hookimpl
from builtin_plugins.catalog.routes import PERMISSIONS, catalog_routes, catalog_tables
from builtin_plugins.catalog.row_counts import ensure_row_counts


@hookimpl
def startup(host: Any) -> None:
    ensure_row_counts(host.db, catalog_tables(host))  # the unfiltered totals (row_counts.py)


FEATURE = Feature(
    permissions=PERMISSIONS,
    routes=catalog_routes,
)
