"""What a :class:`hookspecs.types.ContentList` may carry besides plain values.

- :class:`FeedItem` and :class:`FeedError`: a cloud-feed item (``{kind, id, ...}``, CONTRACT
  "Cloud feed") with typed readers, for a list's :class:`hookspecs.types.FeedKind`. A
  reader raises :class:`FeedError` naming the item and the field; the feed consumer logs it
  to telemetry and skips the item, changing nothing.
- :class:`ContentWriter` and :class:`ContentIngest`: the content-ingest service
  (``hookspecs.services.CONTENT_INGEST``, published by the host). A feature that owns a
  kind's table adds the kind's writer (its own entity and :class:`hookspecs.types.FeedKind`)
  in its ``startup``; a source of items (a folder plugin's sidecar) writes through it and never
  names the table. A kind whose owner is disabled has no writer.
- :class:`TextIndex`: a substring-search index over some text columns of a list's table
  (SQLite FTS5), which the catalog uses for that list's filters when the index exists.
"""
from __future__ import annotations

import hashlib
import logging
from typing import Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

log = logging.getLogger(__name__)


# -- the id and the text length of a collected row (collectors and the feed alike; the host kit's
# svc_host.kit.collecting hands them on with the rest of the collecting kit)
def digest(*parts: Any, length: int = 24) -> str:
    """A short stable hex id from ``parts`` (external ids can be long or contain anything)."""
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:length]


def row_id(integration_type: str, *parts: Any) -> str:
    """``<integration_type>:<digest of the external id>``: the id of a collected row (idempotent upserts)."""
    return f"{integration_type}:{digest(*parts)}"


def clip(value: Any, limit: int) -> str:
    """``value`` as text, cut at ``limit`` characters (``""`` for None)."""
    return ("" if value is None else str(value))[:limit]


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

    def __init__(self, data: Mapping[str, Any], source: str = FEED_PROVENANCE, id_prefix: str | None = None):
        self.data = data
        self.kind = data.get("kind")
        self.id = data.get("id")
        self.source = source  # the provenance its row gets (the cloud feed's, a collector's)
        self.id_prefix = id_prefix

    def row_id(self) -> str:
        """The primary key of the item's row: ``<id_prefix><id>`` when the writer gave a prefix
        (a sidecar's ``plugin_http:<plugin>:``), else ``<source>:<digest of kind and id>``, so
        an item's id never collides with another source's row."""
        if self.id_prefix is not None:
            return f"{self.id_prefix}{self.id}"
        return row_id(self.source, self.kind, self.id)

    def _fail(self, name: str, problem: str) -> FeedError:
        return FeedError(f"{self.kind} {self.id!r}: '{name}' {problem}")

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


class ContentWriter:
    """Writes the rows of one item kind into its owner's table, with the owner's mapping.

    Made by the feature that owns ``entity`` (its own Pony entity) from the
    :class:`hookspecs.types.FeedKind` it declares; every writer of the kind's rows (the cloud
    feed's items, a sidecar's) goes through the same ``values`` and so the same required
    fields. Callers hold the ``db_session``.
    """

    def __init__(self, entity: Any, feed: Any):  # feed: its hookspecs.types.FeedKind
        self.entity = entity
        self.feed = feed

    @property
    def kind(self) -> str:
        return self.feed.kind

    def _note_blob(self, row: Any, unused: list[str] | None) -> None:
        """Add the blob key of ``row`` (about to be deleted or repointed) to ``unused``: the caller
        releases those keys once its transaction committed, if no row uses them any more."""
        blob = self.feed.blob
        if unused is not None and blob is not None and getattr(row, blob.attribute, None):
            unused.append(getattr(row, blob.attribute))

    def upsert(self, item: FeedItem, now_ms: int, unused: list[str] | None = None) -> Any:
        """Create or update ``item``'s row (provenance ``item.source``); an update keeps the row's
        ``created_at_ms`` (its place in "newest first"). :class:`FeedError` on a bad field."""
        feed = self.feed
        key = feed.key_of(item)
        values = {**feed.values(item, now_ms), feed.provenance: item.source}
        row = self.entity.get(**key)
        if row is None:
            row = self.entity(**key, **values)
        else:
            values.pop("created_at_ms", None)
            self._note_blob(row, unused)
            row.set(**values)
        if feed.after_upsert is not None:
            feed.after_upsert(self.entity._database_, row, item)
        return row

    def delete(self, item: FeedItem, unused: list[str] | None = None) -> bool:
        """Delete ``item``'s row when it holds the item's provenance; False when there is none."""
        row = self.entity.get(**self.feed.key_of(item))
        if row is None or getattr(row, self.feed.provenance) != item.source:
            return False
        self._note_blob(row, unused)
        row.delete()
        return True

    def clear(self, source: str, unused: list[str] | None = None) -> None:
        """Delete every row of provenance ``source``."""
        for row in self.entity.select(**{self.feed.provenance: source}):
            self._note_blob(row, unused)
            row.delete()

    def replace(self, items: Iterable[FeedItem], source: str, id_prefix: str, now_ms: int) -> None:
        """Make the rows of provenance ``source`` whose id starts with ``id_prefix`` exactly
        ``items`` (each made with that ``id_prefix``): the answer of a source is its full set."""
        kept = {self.upsert(item, now_ms).id for item in items}
        stored = self.entity.select(**{self.feed.provenance: source})
        for row in [r for r in stored if r.id.startswith(id_prefix) and r.id not in kept]:
            row.delete()


class ContentIngest:
    """The content-ingest service: item kind -> its owner's :class:`ContentWriter`.

    The host publishes one (``CONTENT_INGEST``); each feature adds the writers of the kinds
    whose tables it owns in its ``startup``. ``writer(kind)`` is None when no enabled
    feature owns the kind; :meth:`refused` logs that once per kind and call.
    """

    def __init__(self) -> None:
        self._writers: dict[str, ContentWriter] = {}

    def add(self, writer: ContentWriter) -> None:
        if writer.kind in self._writers:
            raise ValueError(f"item kind {writer.kind!r} already has a writer")
        self._writers[writer.kind] = writer

    def kinds(self) -> list[str]:
        return sorted(self._writers)

    def writer(self, kind: str) -> ContentWriter | None:
        return self._writers.get(kind)

    def refused(self, source: str, kinds: Iterable[str]) -> list[str]:
        """Log one line per kind of ``kinds`` no enabled feature owns; return those kinds."""
        missing = sorted({kind for kind in kinds if kind not in self._writers})
        for kind in missing:
            log.warning("%s: items of type %r refused: no enabled feature stores them "
                        "(the feature that owns them is disabled)", source, kind)
        return missing


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
