"""The feed's kinds: each is a :class:`hookspecs.FeedKind` of a contributed content list
(CONTRACT "Cloud feed"), so a kind exists exactly while the feature that owns its table is
enabled; an item of any other kind is skipped as unknown.

Every feed row is written with provenance ``saas_feed``: ``integration_type`` where the
table has one, ``source`` for calendar events and alerts. Primary keys come from
``FeedItem.row_id()`` so a feed id never collides with a collector row.
"""

from __future__ import annotations

from typing import Any

from hookspecs import ContentList
from hookspecs.content import FEED_PROVENANCE as FEED  # noqa: F401  (re-exported)
from hookspecs.content import FeedError, FeedItem  # noqa: F401  (re-exported)


def check_item(kinds: dict[str, ContentList], item: Any) -> tuple[ContentList, FeedItem]:
    """The content list of a well-formed ``{kind, id, ...}`` item, and the item; FeedError otherwise."""
    if not isinstance(item, dict):
        raise FeedError("an item must be a JSON object")
    kind = item.get("kind")
    if kind not in kinds:
        raise FeedError(f"unknown kind {kind!r}")
    ident = item.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (str, int)) or str(ident) == "":
        raise FeedError(f"{kind}: 'id' must be a non-empty string")
    return kinds[kind], FeedItem(item)
