"""The one meaning of ``frequency_weight``, for slides (screens) and ticker tapes alike.

A weight is **how many times the row appears in one cycle** of its program:
:func:`appearances` rounds it half away from zero, gives any positive weight at least one
appearance and caps it at :data:`MAX_APPEARANCES`; 0 (or no number) leaves the row out.
A cycle is as long as the sum of the appearances of the rows in it (weights 3, 1, 1 make a
cycle of five slides, or five tape segments).

The appearances are spread over the cycle (:func:`spread_cycle`), the cycle seen as a circle:
each row's appearances as evenly spaced as the slots allow, across the end of one cycle and the
start of the next too (3, 1, 1 -> ``a b a c a``; 2 and seven rows of 1 -> ``a b c d e a f g h``,
never ``... h a | a b ...``). Over any whole cycle of picks from the same rows, each row is picked
exactly as many times as its weight.

The slide program keeps one :class:`SmoothRoundRobin` for the life of the canvas; the
marquee and ``GET /v1/ticker/items`` take one cycle from a fresh one (:func:`smooth_cycle`).
"""
from __future__ import annotations

import math
from typing import Any, Hashable, Sequence

from svc_host.kit.formatting import round_half_away

MAX_APPEARANCES = 10
DESCRIPTION = ("appearances per cycle (rounded half away from zero, at least 1 for any positive weight, "
               "at most 10; 0 leaves the row out), spread evenly around each cycle; "
               "the same meaning for slides and ticker tapes")


def appearances(weight: Any) -> int:
    """Appearances per cycle of a row of ``weight`` (see the module doc)."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        return 0
    return min(MAX_APPEARANCES, max(1, round_half_away(weight)))


def spread_cycle(counts: Sequence[int]) -> list[int]:
    """One cycle over rows of ``counts`` appearances (already :func:`appearances`): the indices, as
    many of each as its count, each row's appearances as evenly spaced around the cycle *as a
    circle* as the slots allow, so that the next cycle does not begin with the row the last one
    ended with (nginx's smooth weighted round-robin puts a weight-2 row of nine slots at the end of
    one cycle and the start of the next: twice back to back). The heaviest row first (the first in
    order on a tie) takes the slots ``ceil(k * length / count)`` from the first free one (the next
    free slot when one is taken), the others in turn, rows of one appearance filling what is left;
    then a row still shown twice in a row is swapped apart (:func:`_separate`)."""
    length = sum(count for count in counts if count > 0)
    slots: list[int | None] = [None] * length
    order = sorted((i for i, count in enumerate(counts) if count > 0), key=lambda i: -counts[i])
    for index in order:
        count = counts[index]
        start = slots.index(None)
        for k in range(count):
            slot = (start + math.ceil(k * length / count)) % length
            while slots[slot] is not None:
                slot = (slot + 1) % length
            slots[slot] = index
    return _separate([index for index in slots if index is not None])


def _separate(cycle: list[int]) -> list[int]:
    """``cycle`` with rows shown twice in a row (around the circle) swapped apart where a swap with
    another slot removes a repeat without making one: as few repeats as the counts allow (none
    unless a row has more than half the slots). Written here: no library schedules a circular
    sequence without neighbours."""
    length = len(cycle)

    def repeats_at(slots: Sequence[int]) -> int:
        """Repeats on the two sides of each of ``slots``, each pair counted once."""
        pairs = {(p % length, (p + 1) % length) for slot in slots for p in (slot - 1, slot)}
        return sum(1 for a, b in pairs if cycle[a] == cycle[b])

    if length < 3:
        return cycle
    for _ in range(length):
        slot = next(((j + 1) % length for j in range(length) if cycle[j] == cycle[(j + 1) % length]), None)
        if slot is None:
            break
        for other in range(length):
            if cycle[other] == cycle[slot]:
                continue
            before = repeats_at((slot, other))
            cycle[slot], cycle[other] = cycle[other], cycle[slot]
            if repeats_at((slot, other)) < before:
                break
            cycle[slot], cycle[other] = cycle[other], cycle[slot]
        else:
            break  # no swap helps: the counts force the repeats left
    return cycle


class SmoothRoundRobin:
    """The cycles of :func:`spread_cycle` over keys that may change between picks.

    ``pick(weighted)`` takes ``[(key, weight)]`` (weights already :func:`appearances`, those
    of 0 are skipped) and returns the chosen key, or None when no key has a weight. The keys and
    weights make a cycle, followed in order; new keys or weights start a new one. Offered fewer
    of the cycle's keys (one left out this time: a slide that failed, the one on screen while
    navigating), it takes the next of the cycle that is offered.
    """

    def __init__(self) -> None:
        self.plan: list[Hashable] = []
        self.weights: dict[Hashable, int] = {}
        self.position = 0

    def pick(self, weighted: Sequence[tuple[Hashable, int]], last: Hashable = None) -> Hashable | None:
        """One pick; a new cycle never starts with ``last`` (the key picked before) when it can."""
        offered = {key: weight for key, weight in weighted if weight > 0}
        if not offered:
            return None
        if any(self.weights.get(key) != weight for key, weight in offered.items()):  # a new program
            self.weights = offered
            keys = list(offered)
            self.plan = [keys[i] for i in spread_cycle(list(offered.values()))]
            self.position = 0
            if len(offered) > 1 and self.plan[0] == last:
                self.plan = self.plan[1:] + self.plan[:1]
        for step in range(len(self.plan)):
            key = self.plan[(self.position + step) % len(self.plan)]
            if key in offered:
                self.position = (self.position + step + 1) % len(self.plan)
                return key
        return None  # pragma: no cover  (every offered key is in the plan)

    def forget(self, keep: Sequence[Hashable]) -> None:
        """Drop the cycle when a key in it is no longer in ``keep`` (rows that left the program)."""
        if set(self.weights) - set(keep):
            self.weights, self.plan, self.position = {}, [], 0


def smooth_cycle(weights: Sequence[Any]) -> list[int]:
    """The indices of one whole cycle over rows of ``weights`` (each raw ``frequency_weight``)."""
    return spread_cycle([appearances(weight) for weight in weights])
