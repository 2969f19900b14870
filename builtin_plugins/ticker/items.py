"""Building ticker item texts from tapes (spec 2.4/2.5), in memory, never persisted.

Each ticker type's builder (``TickerType.build_items(host, tape, now_ms)``, with its feature)
returns a list of strings; ``now_ms`` comes from ``host.clock``, so tests format with a fixed
time. ``build_ticker(host, now_ms)`` turns every enabled tape into the ordered, weighted item
list, followed by stand-alone plugin marquees (key-values ``ticker.marquee.<plugin_id>``).
"""
from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any, Callable, Mapping, Sequence

from pony.orm import db_session

from hookspecs.services import MARQUEE_PREFIX, SETTINGS, service
from svc_host.kit.services import marquee_lines
from svc_host.kit.weights import smooth_cycle
from svc_host.kit.rest import list_rows

log = logging.getLogger(__name__)

TAPE_FIELDS = ("id", "ticker_type", "name", "description", "enabled", "frequency_weight", "sort_order",
               "config_json", "created_at_ms", "updated_at_ms")




class TickerService:
    """``host.services[TICKER]``: the enabled tapes and the order of one marquee cycle, for the canvas."""

    def __init__(self, host: Any = None):
        self.host = host

    def cycle(self, tapes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        enabled = [t for t in tapes if t.get("enabled", True)]
        return [enabled[i] for i in smooth_cycle([t.get("frequency_weight", 1) for t in enabled])]

    def enabled(self) -> list[dict[str, Any]]:
        """Every enabled tape, ``config_json`` decoded, in ``(sort_order, id)`` order (any thread)."""
        entity = getattr(self.host.db, "TickerTape", None) if self.host is not None else None
        if entity is None:
            return []
        with db_session:
            rows = list_rows(entity, TAPE_FIELDS, ("sort_order", "id"))
        return [row for row in rows if row["enabled"]]


def build_ticker(host: Any, now_ms: int) -> list[dict[str, Any]]:
    """``[{ordinal, kind, body}]`` from every enabled tape plus stand-alone plugin marquees.

    Tapes are taken in ``sort_order`` (then id). ``frequency_weight`` says how many times a
    tape appears per cycle (:mod:`svc_host.kit.weights`: rounded, at most 10, 0 leaves it out);
    :func:`svc_host.kit.weights.spread_cycle` spreads a heavy tape around the cycle.
    Key-values ``ticker.marquee.<plugin_id>`` not claimed by a ``plugin`` tape follow.
    """
    entity = getattr(host.db, "TickerTape", None)
    # The rows' columns, not Pony entities (a tenth of the time; the canvas hands builders the
    # same kind of object): each tape as attributes, ``config_json`` decoded.
    tapes = [SimpleNamespace(**row) for row in list_rows(entity, TAPE_FIELDS, ("sort_order", "id"))] \
        if entity is not None else []
    claimed = {(t.config_json or {}).get("pluginId") for t in tapes if t.ticker_type == "plugin"}
    built: list[tuple[Any, str, list[str]]] = []
    for tape in tapes:
        if not tape.enabled:
            continue
        item_type = host.registries.ticker_types.get(tape.ticker_type)
        builder: Callable[..., Any] | None = getattr(item_type, "build_items", None)
        if builder is None:
            continue
        try:
            texts = [str(t) for t in builder(host, tape, now_ms) or [] if str(t).strip()]
        except Exception:  # a misbehaving type costs its own items only
            log.exception("ticker type %r failed to build items for tape %r", tape.ticker_type, tape.id)
            continue
        built.append((tape.frequency_weight, tape.ticker_type, texts))

    sequence: list[tuple[str, str]] = []
    for index in smooth_cycle([weight for weight, _, _ in built]):
        _, kind, texts = built[index]
        sequence.extend((kind, text) for text in texts)
    settings = service(host, SETTINGS)
    for key, value in settings.key_values(MARQUEE_PREFIX) if settings is not None else []:
        if key[len(MARQUEE_PREFIX):] not in claimed:
            sequence.extend(("plugin", line) for line in marquee_lines(value))
    return [{"ordinal": index, "kind": kind, "body": body} for index, (kind, body) in enumerate(sequence)]
