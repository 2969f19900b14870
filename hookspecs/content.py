"""What a :class:`hookspecs.types.ContentList` may carry besides plain values.

- :class:`FeedItem` and :class:`FeedError`: a cloud-feed item (``{kind, id, ...}``, CONTRACT
  "Cloud feed") with typed readers, for a list's :class:`hookspecs.types.FeedKind`. A
  reader raises :class:`FeedError` naming the item and the field; the feed consumer logs it
  to telemetry and skips the item, changing nothing.
- :class:`TextIndex`: a substring-search index over some text columns of a list's table
  (SQLite FTS5), which the catalog uses for that list's filters when the index exists.
"""
from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from hookspecs.collecting import clip, row_id

FEED_PROVENANCE = "saas_feed"
"""The provenance of every row the cloud feed writes (``integration_type`` or ``source``)."""
MANUAL_ENTRY = "manual_entry"
"""The provenance of rows entered by hand (``POST /v1/curator/manual/*``)."""


class FeedError(ValueError):
    """A malformed feed event or item: logged to telemetry and skipped."""


class FeedItem:
    """One feed item ``{kind, id, ...}`` with typed readers of its fields.

    Text is clipped to ``limit`` characters; ``required`` fields that are missing or empty,
    and fields of the wrong type, raise :class:`FeedError`.
    """

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
        self.kind = data.get("kind")
        self.id = data.get("id")

    def _fail(self, name: str, problem: str) -> FeedError:
        return FeedError(f"{self.kind} {self.id!r}: '{name}' {problem}")

    def row_id(self) -> str:
        """The primary key of the item's row: ``saas_feed:<digest of kind and id>``, so a feed id
        never collides with a collector's row."""
        return row_id(FEED_PROVENANCE, self.kind, self.id)

    def text(self, name: str, limit: int, required: bool = False) -> str:
        value = self.data.get(name)
        if value is None or value == "":
            if required:
                raise self._fail(name, "is required")
            return ""
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise self._fail(name, "must be text")
        return clip(value, limit)

    def _number(self, name: str, required: bool) -> int | float | None:
        value = self.data.get(name)
        if value is None:
            if required:
                raise self._fail(name, "is required")
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._fail(name, "must be a number")
        return value

    def integer(self, name: str, required: bool = False) -> int | None:
        value = self._number(name, required)
        return None if value is None else int(value)

    def number(self, name: str, required: bool = False) -> float | None:
        value = self._number(name, required)
        return None if value is None else float(value)

    def flag(self, name: str) -> bool:
        value = self.data.get(name, False)
        if not isinstance(value, bool):
            raise self._fail(name, "must be true or false")
        return value

    def choice(self, name: str, choices: Sequence[str], default: str | None = None,
               upper: bool = False) -> str:
        """One of ``choices`` (``default`` when missing; compared in upper case with ``upper``)."""
        value = self.text(name, max(len(c) for c in choices), required=default is None) or default or ""
        value = value.upper() if upper else value
        if value not in choices:
            raise self._fail(name, f"must be one of {', '.join(choices)}")
        return value

    def strings(self, name: str, limit: int) -> list[str]:
        """A list of non-empty strings (duplicates dropped, order kept), each clipped to ``limit``."""
        value = self.data.get(name) or []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self._fail(name, "must be a list of strings")
        return [clip(v, limit) for v in dict.fromkeys(value)]


@runtime_checkable
class TextIndex(Protocol):
    """A substring-search index of a content list's table, used by the catalog's text filters.

    Two FTS5 indexes may exist (each created by the owner's migrations, SQLite only): a
    trigram index over ``columns`` (an exact, case-insensitive substring match for needles
    of three or more characters) and a word index over ``word_columns`` with a term list
    (a one-word needle becomes the terms that contain it). ``tables(db)`` names those that
    exist; the catalog scans when neither does (PostgreSQL, or the owner's migration not
    run). The word index also holds ``suppressed``.
    """

    columns: frozenset[str]
    word_columns: frozenset[str]

    def tables(self, db: Any) -> tuple[str | None, str | None]:
        """(trigram table, word table) present in ``db``, each None when absent."""
    def sync_terms(self, db: Any) -> None:
        """Bring the term list up to date (inside the caller's ``db_session``)."""
    def terms_containing(self, db: Any, needle: str, limit: int) -> list[str] | None:
        """The indexed words containing ``needle`` (folded), None when more than ``limit``."""
    def fold(self, text: str) -> str:
        """``text`` folded as the index's tokenizer folds it."""
    def words(self, needle: str) -> list[str]:
        """The words of ``needle`` as the word index splits them, folded."""
    def is_one_word(self, needle: str) -> bool:
        """Whether ``needle`` holds no separator, so every occurrence lies inside one word."""
    def phrase(self, needle: str) -> str:
        """An FTS5 phrase matching ``needle`` literally."""


def release_blob(host: Any, key: str | None) -> None:
    """Delete the blob ``key`` unless a row of any content list still uses it (after the
    transaction that removed its row committed: a backup taken in between never holds a row
    whose blob is missing). Moderation's deletes and the cloud feed's use it."""
    if not key:
        return
    for item in host.registries.content_lists.values():
        if item.blob_attribute and getattr(host.db, item.entity).exists(**{item.blob_attribute: key}):
            return
    host.blobs.delete(key)
