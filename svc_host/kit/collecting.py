"""The collecting kit: stable row ids, text cleanup, remote media into blobs, the per-unit loop.

Collectors receive a :class:`hookspecs.collect.CollectorContext` and use
these functions with it; nothing here talks to the network except through ``ctx.http``.
"""

from __future__ import annotations

import html
import html.entities
import re
from html.parser import HTMLParser
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

IMAGE_TYPES = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/gif": ".gif"}
VIDEO_TYPES = {"video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov"}
DEFAULT_IMAGE_BYTES = 8 * 1024 * 1024
DEFAULT_VIDEO_BYTES = 50 * 1024 * 1024


from hookspecs.collect import CollectorError, HttpFailure  # noqa: E402  (the contract defines them)
from hookspecs.content import clip, digest, row_id  # noqa: E402,F401  (the contract's rules of a collected row)


_SPACE = re.compile(r"\s+")


class _TextOnly(HTMLParser):
    """The text of an HTML fragment: tags, comments and script/style bodies dropped, entities
    decoded. The standard library's parser (not a tag regex) knows that ``3 < 5 and 7 > 2``
    holds no tag, so plain text survives as written."""

    _HIDDEN = frozenset({"script", "style", "template", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self._HIDDEN:
            self._hidden += 1
        else:
            self.parts.append(" ")  # <br>, </p><p>: words either side stay apart

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        else:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


# An "&" and, when it begins one, the rest of a complete reference ("#38;", "#x26;", "amp;").
_ENTITY_OR_AMPERSAND = re.compile(r"&(#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)?")


def _keep_incomplete_ampersand(match: re.Match) -> str:
    reference = match.group(1)
    if reference and (reference[0] == "#" or reference in html.entities.html5):
        return match.group(0)  # complete: the decoding below turns it into its character
    return "&amp;" + (reference or "")  # decoded back to "&": the text stays as written


def plain_text(value: Any, limit: int) -> str:
    """HTML fragments and entities to one line of plain text, cut at ``limit`` characters.

    Collectors cannot tell plain text from HTML (feeds rarely declare it, and feedparser
    has already decoded the XML layer), so the rule is: a value with tags is parsed as HTML
    (tags, comments, scripts and styles go); in any value only *complete* entity references
    are decoded (``&amp;``, ``&not;``, ``&#38;``, ``&#x26;``: a name HTML defines, or a
    number, ended by ``;``). An ``&`` that begins none stays as written, so ``Fish&notes``
    and ``AT&T`` survive (``html.unescape`` and the HTML parser also decode legacy names
    without ``;``, as browsers do, which turned ``Fish&notes`` into ``Fish¬es``)."""
    if value is None:
        return ""
    text = _ENTITY_OR_AMPERSAND.sub(_keep_incomplete_ampersand, str(value))
    if "<" in text:
        parser = _TextOnly()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
    else:
        text = html.unescape(text)
    text = _SPACE.sub(" ", text).strip()
    return text[:limit]


def store_remote_media(
    ctx: Any, url: str, prefix: str, kinds: dict[str, str] = IMAGE_TYPES, max_bytes: int = DEFAULT_IMAGE_BYTES,
    headers: dict[str, str] | None = None, version: str = "",
) -> str | None:
    """Download ``url`` into a blob under ``prefix`` and return its key.

    ``headers`` go with the request (credentials of a WebDAV folder); a ``version`` (an ETag)
    is part of the key, so a changed file at the same URL gets a blob of its own.

    The content type must be one of ``kinds`` (else ``None``, logged with the reason as a
    warning of the run); the download goes through
    ``ctx.http`` with its timeouts and ``max_bytes``. Failures propagate as ``HttpFailure``.
    """
    response = ctx.http.get(url, max_bytes=max_bytes, accept=",".join(kinds), headers=headers)
    content_type = response.content_type
    if content_type not in kinds or not response.content:
        reason = "the body is empty" if content_type in kinds else \
            f"content type {content_type or '(none)'} is not one of {', '.join(kinds)}"
        ctx.log(f"media {url.split('?', 1)[0][:200]} skipped: {reason}", "warning")
        return None
    key = f"{prefix}/{digest(url, version, length=32) if version else digest(url, length=32)}{kinds[content_type]}"
    ctx.blobs.put(key, response.content, content_type)
    return key


def delete_blobs(ctx: Any, keys: Iterable[str | None]) -> None:
    for key in keys:
        if key:
            ctx.blobs.delete(key)


def require(value: Any, kind: type, what: str) -> Any:
    """``value`` when it is a ``kind``, else a CollectorError-style ValueError naming ``what``."""
    if not isinstance(value, kind):
        raise ValueError(f"unexpected upstream data: {what} is not a {kind.__name__}")
    return value


def outcome(ctx: Any, done: int, failed: list[str], what: str) -> str:
    """The run summary; raises when every attempted unit failed (so the run is backed off)."""
    if failed and not done:
        raise CollectorError(f"all {len(failed)} {what} failed: " + "; ".join(failed)[:1500])
    summary = f"{done} {what} updated"
    if failed:
        summary += f", {len(failed)} failed"
    ctx.summary = summary
    return summary


def bulk_insert(db: Any, table: str, columns: list[str], rows: list[tuple]) -> None:
    """Insert many rows with one statement batch, inside the caller's db_session.

    Pony creates entities one by one (about 0.1 ms each); ingesting a 10,000-entry feed
    goes through here instead. The session must already hold a flushed Pony change, so
    that Pony has opened the transaction and will commit it.
    """
    if not rows:
        return
    cursor = db.get_connection().cursor()
    names = ", ".join(columns)
    if db.provider_name == "postgres":
        from psycopg2.extras import execute_values

        execute_values(cursor, f"INSERT INTO {table} ({names}) VALUES %s", rows, page_size=1000)
    else:
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})", rows)


SKIPPED = object()
"""Return it from a unit's work when the unit had nothing to do: it counts as neither done nor failed."""

UNIT_FAILURES: tuple[type[BaseException], ...] = (HttpFailure, CollectorError)
"""What fails one unit only, by default: an upstream exchange or an expected collector failure."""


@dataclass
class UnitRun:
    """What :func:`each_unit` did: how many units were done, the message of each failed one."""

    done: int = 0
    failed: list[str] = field(default_factory=list)

    def finish(self, ctx: Any, what: str, nothing: str, note: str = "") -> str:
        """The run summary: ``nothing`` when no unit was done or failed (none configured, none
        due), else :func:`outcome` (which fails the run when every attempted unit failed)
        followed by ``note``."""
        if not self.done and not self.failed:
            ctx.summary = nothing
            return nothing
        outcome(ctx, self.done, self.failed, what)
        if note:
            ctx.summary += f", {note}"
        return ctx.summary


def each_unit(ctx: Any, units: Iterable[Any], work: Callable[[Any], Any], name: Callable[[Any], str], *,
              catch: tuple[type[BaseException], ...] = UNIT_FAILURES,
              on_failure: Callable[[Any, BaseException], str] | None = None) -> UnitRun:
    """Run ``work(unit)`` for each unit of a collection (a feed, a location, a board...) on its own.

    The run's cancellation is checked before each unit. A unit whose work raises one of
    ``catch`` fails alone: ``"<name(unit)>: <error>"`` is logged to telemetry as an error
    (or ``on_failure(unit, error)`` records it and returns the message) and the next unit
    runs. ``work`` may return a note, logged as ``"<name(unit)>: <note>"``, or
    :data:`SKIPPED`. Anything else (``Cancelled`` included) ends the run. Finish with
    :meth:`UnitRun.finish`::

        run = each_unit(ctx, symbols, fetch_quote, lambda s: f"symbol {s.symbol}")
        return run.finish(ctx, "symbols", "no enabled stock symbol")
    """
    run = UnitRun()
    for unit in units:
        ctx.checkpoint()
        try:
            note = work(unit)
        except catch as exc:
            if on_failure is not None:
                message = on_failure(unit, exc)
            else:
                message = f"{name(unit)}: {exc}"
                ctx.log(message, "error")
            run.failed.append(message)
            continue
        if note is SKIPPED:
            continue
        run.done += 1
        if note:
            ctx.log(f"{name(unit)}: {note}")
    return run
