"""Proof of play of a group (``GET /bff/v1/fleet/plays``, docs/controller.md "Proof of play of a
group"): every display of the group asked for its plays (``GET /v1/telemetry/plays``, CONTRACT
"Displays in step, and proof of play") with its stored key, through the bound every group route
shares (:func:`svc_controller.bulk.each_display`: at most ``SVC_CONTROLLER_FLEET_CONCURRENCY``
displays at once, a hung one never holds up the rest), and the answers put together as ONE CSV.

- Pages of :data:`PAGE_ROWS` plays, each answer read up to :data:`PAGE_BYTES` and within
  :data:`PAGE_BUDGET_S`; a display's pages in all within :data:`DISPLAY_BUDGET_S`; at most
  :data:`MAX_ROWS` plays of one display (past that its export is ``truncated``). Every play of
  an answer is checked (a display is not trusted to answer like one).
- Each display's rows go to a scratch file of their own as its pages come (in memory up to
  :data:`SPOOL_BYTES`, then an unlinked file in the data dir, mode 0600), so many large
  displays cost disk, not memory; the answer is streamed from them in the displays' order.
- A display is in the export whole or not at all: one that stops answering half way, or
  answers something that is not a page of plays, has none of its rows in the export, and the
  summary says why.
- The CSV: the plays table, one empty row, then the summary (a title row, a header row and one
  row per display of the group). Text cells a spreadsheet would run as a formula get a
  leading ``'`` (:func:`svc_host.rest.text.spreadsheet_text`).
"""
from __future__ import annotations

import asyncio
import csv
import datetime
import io
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlencode

import httpx

from svc_controller.bulk import accepted, call, each_display
from svc_controller.fleet import BadAnswer, Fleet
from svc_host.http.errors import ApiError
from svc_host.rest.text import spreadsheet_text

KINDS = ("slide", "alert", "overlay")
PAGE_ROWS = 1000
PAGE_BYTES = 4 * 1024 * 1024  # 1000 plays of the longest texts, every character escaped, fit
PAGE_BUDGET_S = 10.0
DISPLAY_BUDGET_S = 120.0
MAX_ROWS = 1_000_000
SPOOL_BYTES = 1024 * 1024
TEXT_MAX = 1000
CURSOR_MAX = 200
MAX_MS = 253_402_300_799_999  # 9999-12-31 23:59:59.999 UTC: the last instant a date can name
PLAY_COLUMNS = ("display_id", "display_name", "screen_id", "screen_type", "label", "started_ms", "ended_ms",
                "complete", "kind", "started_utc", "ended_utc", "duration_s")
SUMMARY_COLUMNS = ("display_id", "display_name", "result", "plays", "reason")
RESULTS = ("exported", "truncated", "failed", "timed_out")
PATH = "/v1/telemetry/plays"


@dataclass
class _Display:
    """One display's part of the export: its rows so far (CSV bytes), their count, and whether
    :data:`MAX_ROWS` cut them."""

    spool: Any
    rows: int = 0
    truncated: bool = False


@dataclass
class Export:
    """The export, put together: ``chunks()`` streams it, ``size`` bytes in all; ``summary``
    the per-display results (``{id, name, result, plays, reason?}``)."""

    filename: str
    summary: list[dict]
    size: int
    _parts: list = field(default_factory=list)  # bytes, or a spool to copy

    @property
    def rows(self) -> int:
        return sum(s["plays"] for s in self.summary)

    @property
    def incomplete(self) -> list[str]:
        return [s["id"] for s in self.summary if s["result"] != "exported"]

    def chunks(self) -> Iterator[bytes]:
        """The CSV's bytes; the scratch files are closed when it ends or is closed early."""
        try:
            for part in self._parts:
                if isinstance(part, bytes):
                    yield part
                    continue
                part.seek(0)
                while chunk := part.read(64 * 1024):
                    yield chunk
        finally:
            self.close()

    def close(self) -> None:
        for part in self._parts:
            if not isinstance(part, bytes):
                part.close()


def utc_text(ms: int) -> str:
    """``2026-12-06 20:48:59.123``: the UTC time in the form spreadsheets read as a date and time."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def _csv(rows: list) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode()


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) > TEXT_MAX:
        raise BadAnswer(f"{PATH} answered a play whose {name} is not a text of at most {TEXT_MAX} characters")
    return spreadsheet_text(value)


def _ms(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MS:
        raise BadAnswer(f"{PATH} answered a play whose {name} is not a time in epoch milliseconds")
    return value


def play_row(display_id: str, name: str, play: Any) -> tuple:
    """One checked play of a display's answer as a row of :data:`PLAY_COLUMNS`."""
    if not isinstance(play, dict):
        raise BadAnswer(f"{PATH} answered an item that is not a play")
    started, ended = _ms(play.get("started_ms"), "started_ms"), _ms(play.get("ended_ms"), "ended_ms")
    if not isinstance(play.get("complete"), bool):
        raise BadAnswer(f"{PATH} answered a play whose complete is not true or false")
    return (display_id, name, _text(play.get("screen_id"), "screen_id"), _text(play.get("screen_type"), "screen_type"),
            _text(play.get("label"), "label"), started, ended, "true" if play["complete"] else "false",
            _text(play.get("kind"), "kind"), utc_text(started), utc_text(ended), f"{(ended - started) / 1000:.3f}")


def page_of(answer: Any) -> tuple[list, str | None]:
    """``(items, next_cursor)`` of a display's page; :class:`BadAnswer` when it is not one."""
    if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
        raise BadAnswer(f"{PATH} answered 200 without a page of plays")
    items, cursor = answer["items"], answer.get("next_cursor")
    if len(items) > PAGE_ROWS:
        raise BadAnswer(f"{PATH} answered more plays than the {PAGE_ROWS} asked for")
    if cursor is not None and (not isinstance(cursor, str) or not 0 < len(cursor) <= CURSOR_MAX):
        raise BadAnswer(f"{PATH} answered a next_cursor that is not a cursor")
    if cursor is not None and not items:
        raise BadAnswer(f"{PATH} answered a page without plays that names a next one")
    return items, cursor


def filename(group: str, from_ms: int, to_ms: int) -> str:
    """``plays-<group>-<first day>-<last day>.csv`` (the group's letters and digits only)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", group).strip("-.")[:40] or "group"
    last = max(from_ms, to_ms - 1)
    return f"plays-{safe}-{utc_text(from_ms)[:10]}-{utc_text(last)[:10]}.csv"


def export(fleet: Fleet, group: str, from_ms: int, to_ms: int, kind: str | None, concurrency: int,
           scratch: Path) -> Export:
    """Every display of ``group`` asked for the plays that started in ``[from_ms, to_ms)``
    (``kind``: only those); the :class:`Export`. 400 when no display of the fleet is in ``group``."""
    targets = fleet.action_targets(group, None)
    if not targets:
        raise ApiError(400, "validation_failed", "no display of the fleet is in this group",
                       {"group": ["no display of the fleet is in this group"]})
    names = {t[0]: spreadsheet_text(t[1]) for t in targets}  # the CSV cell of each display's name
    parts = {t[0]: _Display(tempfile.SpooledTemporaryFile(SPOOL_BYTES, "w+b", dir=scratch)) for t in targets}

    async def pull(client: httpx.AsyncClient, base: str, request: dict, display_id: str) -> None:
        mine = parts[display_id]
        query: dict[str, Any] = {"from_ms": from_ms, "to_ms": to_ms, "limit": PAGE_ROWS}
        if kind is not None:
            query["kind"] = kind
        while True:
            try:
                async with asyncio.timeout(PAGE_BUDGET_S):
                    status, answer = await call(client, base, request, "GET", f"{PATH}?{urlencode(query)}",
                                                limit=PAGE_BYTES)
            except TimeoutError:
                raise TimeoutError(f"no answer within {PAGE_BUDGET_S:g} s"
                                   + (f" (after {mine.rows} plays)" if mine.rows else "")) from None
            items, cursor = page_of(accepted(status, answer, PATH, 200))
            rows = [play_row(display_id, names[display_id], play) for play in items]
            if mine.rows + len(rows) > MAX_ROWS:
                rows, mine.truncated = rows[:MAX_ROWS - mine.rows], True
            mine.spool.write(_csv(rows))
            mine.rows += len(rows)
            if cursor is None or mine.truncated:
                return
            query["cursor"] = cursor

    try:
        results = each_display(fleet, targets, pull, concurrency, DISPLAY_BUDGET_S, timeout_s=PAGE_BUDGET_S)
        summary, out = [], [_csv([PLAY_COLUMNS])]
        for result in results:
            mine = parts[result["id"]]
            entry = {"id": result["id"], "name": result["name"], "result": result["result"], "plays": 0}
            if result["result"] == "done":
                entry["result"] = "truncated" if mine.truncated else "exported"
                entry["plays"] = mine.rows
                if mine.truncated:
                    entry["reason"] = f"more than {MAX_ROWS} plays: the first {MAX_ROWS} are exported"
                out.append(mine.spool)
            else:
                entry["reason"] = result["reason"] + " (none of its plays are in this export)"
                mine.spool.close()
            summary.append(entry)
        out.append(_csv(_summary_rows(group, from_ms, to_ms, summary)))
    except BaseException:
        for mine in parts.values():
            mine.spool.close()
        raise
    size = 0
    for part in out:
        if isinstance(part, bytes):
            size += len(part)
        else:
            part.seek(0, io.SEEK_END)
            size += part.tell()
    return Export(filename(group, from_ms, to_ms), summary, size, out)


def _summary_rows(group: str, from_ms: int, to_ms: int, summary: list[dict]) -> list:
    missing = [s for s in summary if s["result"] in ("failed", "timed_out")]
    cut = [s for s in summary if s["result"] == "truncated"]
    words = [f"{len(summary)} display{'s' if len(summary) != 1 else ''}",
             f"{sum(s['plays'] for s in summary)} plays"]
    if missing:
        words.append(f"{len(missing)} did not answer or failed: "
                     + ", ".join(spreadsheet_text(s["name"]) for s in missing))
    if cut:
        words.append(f"{len(cut)} truncated")
    title = (f"group {spreadsheet_text(group)}, plays that started from {utc_text(from_ms)} UTC to before "
             f"{utc_text(to_ms)} UTC: " + "; ".join(words))
    return [[], ["summary", title], list(SUMMARY_COLUMNS),
            *([s["id"], spreadsheet_text(s["name"]), s["result"], s["plays"], spreadsheet_text(s.get("reason", ""))]
              for s in summary)]
