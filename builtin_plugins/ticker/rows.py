"""The ticker band's model (:mod:`builtin_plugins.ticker.display`): a cycle's tapes as a *row* of
*segments* (one a tape), each of *items* (one a text, drawn once into a texture), and the *runs*
(placements of a row) that move through the band."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hookspecs.render import RenderContext


@dataclass
class Item:
    """One text of a segment: its texture (white; tinted by the run) and its slot width."""

    text: str
    texture: Any = None
    slot: float = 0.0
    x: float = 0.0  # start within its row


@dataclass
class Segment:
    """One tape's appearance in a row."""

    tape: dict
    context: RenderContext
    kind: str
    items: list[Item]
    refresh: float | None = None
    next_refresh: float = 0.0
    building: bool = False  # a refresh of its texts is on the loader thread


@dataclass
class Row:
    """One prepared cycle: its segments, laid out (item positions, separators, width)."""

    segments: list[Segment]
    width: float = 0.0
    dots: list[float] = field(default_factory=list)  # separator centres within the row

    @property
    def items(self) -> list[Item]:
        return [item for segment in self.segments for item in segment.items]


@dataclass
class Run:
    """One placement of a row in the band: its instruction group behind one Translate."""

    row: Row
    group: Any
    translate: Any
    rects: list[Any]
