"""Reading the plays: one page in start order, its opaque cursor, and the CSV form.

A page is the plays that started in ``[from_ms, to_ms)``, oldest first (``started_ms``, then
the row id), after the cursor; the cursor names the last row of the page before, so a page
never skips or repeats a row while new plays are written. It is ``p1.<base64url>``: opaque to
clients, and anything else is refused as a validation failure.
"""
from __future__ import annotations

import base64
import csv
import io
import re
from typing import Any

from svc_host.kit.rest import FORMULA_START
from svc_host.kit.storage import select_rows

from builtin_plugins.plays.recorder import TABLE

FIELDS = ("screen_id", "screen_type", "label", "started_ms", "ended_ms", "complete", "kind")
"""The fields of a play, the CONTRACT's first, then ``kind``; the CSV columns in this order."""
_CURSOR = re.compile(r"^p1\.([A-Za-z0-9_-]{1,40})$")
_POSITION = re.compile(r"^(\d{1,16})\.(\d{1,19})$")
CONDITIONS = {"from_ms": "started_ms >= $from_ms", "to_ms": "started_ms < $to_ms",
              "screen_id": "screen_id = $screen_id", "kind": "kind = $kind"}


def encode_cursor(started_ms: int, row_id: int) -> str:
    return "p1." + base64.urlsafe_b64encode(f"{started_ms}.{row_id}".encode()).decode().rstrip("=")


def decode_cursor(text: str) -> tuple[int, int]:
    """``(started_ms, id)`` of a cursor :func:`encode_cursor` made; ValueError for anything else."""
    match = _CURSOR.match(text or "")
    if match is None:
        raise ValueError("not a cursor of this route")
    body = match.group(1)
    try:
        decoded = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        raise ValueError("not a cursor of this route") from None
    position = _POSITION.match(decoded)
    if position is None:
        raise ValueError("not a cursor of this route")
    started, row_id = int(position.group(1)), int(position.group(2))
    if started > 2 ** 53 or row_id > 2 ** 63 - 1:
        raise ValueError("not a cursor of this route")
    return started, row_id


def page(db: Any, limit: int, from_ms: int | None = None, to_ms: int | None = None,
         screen_id: str | None = None, kind: str | None = None,
         after: tuple[int, int] | None = None) -> tuple[list[tuple], str | None]:
    """Up to ``limit`` plays as tuples in :data:`FIELDS` order (:func:`items` and :func:`to_csv`
    make their JSON and CSV) and the cursor of the next page (None when none is left); inside a db_session."""
    given = {name: value for name, value in (("from_ms", from_ms), ("to_ms", to_ms), ("screen_id", screen_id),
                                             ("kind", kind)) if value is not None}
    where, params = [CONDITIONS[name] for name in given], {"n": limit + 1, **given}
    if after is not None:
        where.append("(started_ms > $after_ms OR (started_ms = $after_ms AND id > $after_id))")
        params["after_ms"], params["after_id"] = after
    sql = (f"SELECT {', '.join(FIELDS)}, id FROM {TABLE}"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY started_ms, id LIMIT $n")
    rows = select_rows(db, sql, params)
    if len(rows) <= limit:
        return rows, None
    del rows[limit:]
    return rows, encode_cursor(int(rows[-1][3]), int(rows[-1][7]))


def items(rows: list[tuple]) -> list[dict[str, Any]]:
    """The rows of :func:`page` as the JSON items."""
    return [{"screen_id": screen_id, "screen_type": screen_type, "label": label, "started_ms": int(started),
             "ended_ms": int(ended), "complete": bool(complete), "kind": kind}
            for screen_id, screen_type, label, started, ended, complete, kind, _id in rows]


def to_csv(rows: list[tuple]) -> str:
    """The rows of :func:`page` as CSV (RFC 4180, ``\\r\\n`` line ends), a header row of
    :data:`FIELDS` first; ``complete`` as ``true``/``false``. A text that a spreadsheet would run
    as a formula (``=``, ``+``, ``-``, ``@``, tab or carriage return first) gets a leading ``'``."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(FIELDS)
    formula = FORMULA_START
    writer.writerows(("'" + screen_id if screen_id[:1] in formula else screen_id,
                      "'" + screen_type if screen_type[:1] in formula else screen_type,
                      "'" + label if label[:1] in formula else label,
                      started, ended, "true" if complete else "false", kind)
                     for screen_id, screen_type, label, started, ended, complete, kind, _id in rows)
    return out.getvalue()
