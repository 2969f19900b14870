"""Helpers around the host's services, for a plugin's write paths, background jobs and display.

The contract (:mod:`hookspecs.services`) declares the service keys and their Protocols and
:func:`~hookspecs.services.service` / :func:`~hookspecs.services.require` reach them; these are
the helpers built on them:

- the display's zone and date (:func:`display_zone`, :func:`today`) and its preferences
  (:func:`preferences`);
- change events (:func:`publish`, :func:`events_batch`);
- the curator's members of a kind (:func:`curated`);
- content lists: their feed writers (:func:`add_writers`), a blob no row uses any more
  (:func:`release_blob`), a plugin marquee's lines (:func:`marquee_lines`);
- :class:`Periodic`: a task every few seconds on a daemon thread (the host keeps its code in
  :mod:`svc_host.periodic`; the controller uses it too).
"""
from __future__ import annotations

import contextlib
import datetime as dt
import logging
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Mapping, Sequence

from hookspecs.content import ContentWriter
from hookspecs.render import DEFAULT_TIMEZONE, Preferences
from hookspecs.services import CONTENT_INGEST, CURATOR, DISPLAY_PREFERENCES, EVENTS, SETTINGS, service
from svc_host.kit.formatting import zone_or_utc
from svc_host.periodic import Periodic

if TYPE_CHECKING:  # pragma: no cover
    from zoneinfo import ZoneInfo

    from hookspecs.host import Host

log = logging.getLogger(__name__)

__all__ = ["display_zone", "marquee_lines", "today", "preferences", "publish", "events_batch",
           "curated", "add_writers", "release_blob", "Periodic"]


def display_zone(host: "Host") -> "ZoneInfo":
    """The display's time zone: the settings service's ``display_zone()``, UTC without it.

    The one reader of ``display_timezone``: the ticker, the curator, manual entries, the
    calendar collector and the canvas all call this.
    """
    settings = service(host, SETTINGS)
    if settings is None:
        return zone_or_utc(DEFAULT_TIMEZONE)
    return settings.display_zone()


def marquee_lines(value: str | None) -> list[str]:
    """The non-blank lines of a plugin marquee key-value, stripped."""
    return [line.strip() for line in (value or "").splitlines() if line.strip()]


def today(host: "Host", now_ms: int) -> dt.date:
    """The date at ``now_ms`` in the display's time zone."""
    return dt.datetime.fromtimestamp(now_ms / 1000, display_zone(host)).date()


def preferences(host: "Host") -> "Preferences":
    """The display preferences: the settings plugin's ``DisplayPreferences.current()``, or the
    defaults of :class:`hookspecs.render.Preferences` without it."""
    prefs = service(host, DISPLAY_PREFERENCES)
    return prefs.current() if prefs is not None else Preferences()


def publish(host: "Host", *topics: str) -> None:
    """Publish change events through the host's :class:`ChangeEvents` (nothing without one).

    Inside a request (or a ``batch()``) they are delivered once it succeeded, after its
    commit; elsewhere call this after your ``db_session`` ended. A write route usually
    names its topics on its ``Operation(publishes=...)`` instead.
    """
    events = service(host, EVENTS)
    if events is not None:
        for topic in topics:
            events.publish(topic)


def events_batch(host: "Host") -> ContextManager[None]:
    """The host's :meth:`ChangeEvents.batch` (a no-op without change events): wrap a background
    job's ``db_session`` in it so what it publishes is delivered after the commit."""
    events = service(host, EVENTS)
    return events.batch() if events is not None else contextlib.nullcontext()


def curated(host: "Host", kind: str,
            rows: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], dict[str, bool]]:
    """``rows`` narrowed to the curator's effective members of ``kind`` (``screens``, ``tickers``,
    ``overlays``) and the program controls (``screens_enabled``, ``ticker_enabled``).

    Without the curator (or when it fails: logged) every row stays and every control is on.
    The curator decides; this only reads its :meth:`hookspecs.services.CuratorService.active_view`.
    """
    controls = {"screens_enabled": True, "ticker_enabled": True}
    curator = service(host, CURATOR)
    if curator is None:
        return list(rows), controls
    try:
        view = curator.active_view()
    except Exception:  # noqa: BLE001  the curator's bug must not blank the screen
        log.exception("curator active view failed; showing every row")
        return list(rows), controls
    members = (view or {}).get("effective_members") or {}
    if kind in members:
        ids = {m["id"] if isinstance(m, dict) else m for m in members[kind]}
        rows = [row for row in rows if row.get("id") in ids]
    controls.update({key: bool(value) for key, value in ((view or {}).get("program_controls") or {}).items()})
    return list(rows), controls


def add_writers(host: Any, lists: Iterable[Any]) -> None:
    """Add a :class:`ContentWriter` for each of ``lists`` (the caller's own content lists) that
    has a feed kind to the host's content-ingest service (a feature's ``startup`` calls this)."""
    ingest = service(host, CONTENT_INGEST)
    if ingest is None:
        return
    for item in lists:
        if item.feed is not None:
            ingest.add(ContentWriter(getattr(host.db, item.entity), item.feed))


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
