"""Applying feed events to the catalog tables, each event in one transaction with its id.

The last applied event id is kept in key-value ``saas_feed.last_event_id`` (written through
the settings service, which joins the event's transaction) in the same transaction as the
rows it produced, so after a crash or restart the ``Last-Event-ID`` sent on reconnect names exactly the last event whose rows are stored.
"""

from __future__ import annotations

from typing import Any

from pony import orm

from builtin_plugins.cloud_feed.kinds import FEED, FeedError, check_item
from hookspecs.content import ContentWriter
from svc_host.kit.services import release_blob
from hookspecs.services import CONTENT_INGEST, MARQUEE_PREFIX, SETTINGS, SettingsService, require, service

LAST_EVENT_KEY = "saas_feed.last_event_id"
TICKER_KEY = MARQUEE_PREFIX + "saas_feed"


class FeedStore:
    def __init__(self, host: Any):
        self.host = host
        self.db = host.db
        self.kinds = host.registries.feed_kinds()
        self._unused: list[str] = []
        # The key-values (last event id, ticker text) are the settings plugin's table; its
        # startup is tryfirst, so the service is there when this store is made.
        self.settings: SettingsService = require(host, SETTINGS)

    def last_event_id(self) -> str | None:
        return self.settings.key_value(LAST_EVENT_KEY) or None

    def _remember(self, event_id: str | None) -> None:
        if event_id:
            self.settings.put_key_value(LAST_EVENT_KEY, event_id)

    def apply(self, event: str, data: Any, event_id: str | None) -> str:
        """Apply one event; returns a one-line summary. FeedError: nothing was changed
        (the id is still remembered, in its own transaction, so the bad event is not replayed)."""
        self._unused: list[str] = []  # blob keys of rows removed or repointed by this event
        try:
            with orm.db_session:
                summary = self._apply(event, data)
                self._remember(event_id)
            with orm.db_session:  # once committed: files no row uses any more go
                for key in self._unused:
                    release_blob(self.host, key)
            return summary
        except FeedError:
            with orm.db_session:
                self._remember(event_id)
            raise

    def _apply(self, event: str, data: Any) -> str:
        if not isinstance(data, dict):
            raise FeedError(f"{event}: data must be a JSON object")
        if event == "upsert":
            self._upsert(data)
            return f"upsert {data['kind']} {data['id']}"
        if event == "delete":
            content, item = check_item(self.kinds, data)
            found = self._delete(content, item)
            return f"delete {data['kind']} {data['id']}" + ("" if found else " (not stored)")
        if event == "snapshot":
            kinds, items = data.get("kinds"), data.get("items")
            if not isinstance(kinds, list) or not isinstance(items, list):
                raise FeedError("snapshot: 'kinds' and 'items' must be lists")
            unknown = [k for k in kinds if k not in self.kinds]
            if unknown:
                raise FeedError(f"snapshot: unknown kinds {unknown!r}")
            strays = [i.get("kind") if isinstance(i, dict) else i for i in items
                      if not isinstance(i, dict) or i.get("kind") not in kinds]
            if strays:
                raise FeedError(f"snapshot: items of kinds not listed in 'kinds': {strays[:5]!r}")
            for name in dict.fromkeys(kinds):
                self._clear(self.kinds[name])
            orm.flush()
            for item in items:
                self._upsert(item)
            return f"snapshot {', '.join(kinds) or '(no kinds)'}: {len(items)} items"
        if event == "ticker":
            text = data.get("text")
            if not isinstance(text, str):
                raise FeedError("ticker: 'text' must be a string")
            self.settings.put_key_value(TICKER_KEY, text)
            return "ticker text"
        raise FeedError(f"unknown event type {event!r}")

    def _writer(self, content: Any) -> ContentWriter:
        """The kind's writer: the owner's own when it added one to the content-ingest service,
        else one made from the content list it declares (same entity, same mapping)."""
        ingest = service(self.host, CONTENT_INGEST)
        writer = ingest.writer(content.feed.kind) if ingest is not None else None
        return writer or ContentWriter(getattr(self.db, content.entity), content.feed)

    def _upsert(self, data: dict) -> None:
        content, item = check_item(self.kinds, data)
        self._writer(content).upsert(item, self.host.clock.now_ms(), self._unused)

    def _delete(self, content: Any, item: Any) -> bool:
        return self._writer(content).delete(item, self._unused)

    def _clear(self, content: Any) -> None:
        self._writer(content).clear(FEED, self._unused)
