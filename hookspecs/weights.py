"""The one meaning of ``frequency_weight``, for slides (screens) and ticker tapes alike.

A weight is **how many times the row appears in one cycle** of its program:
:func:`appearances` rounds it half away from zero, gives any positive weight at least one
appearance and caps it at :data:`MAX_APPEARANCES`; 0 (or no number) leaves the row out.
A cycle is as long as the sum of the appearances of the rows in it (weights 3, 1, 1 make a
cycle of five slides, or five tape segments).

The appearances are spread over the cycle by the **smooth weighted round-robin** of nginx
(:class:`SmoothRoundRobin`): at each pick every row's running score grows by its weight,
the row with the highest score (the first in order on a tie) is picked and loses the total
of the weights. Over any whole cycle of picks from the same rows, each row is picked
exactly as many times as its weight, the heavy ones spread out (3, 1 -> ``a a b a``).

The slide program keeps one :class:`SmoothRoundRobin` for the life of the canvas; the
marquee and ``GET /v1/ticker/items`` take one cycle from a fresh one (:func:`smooth_cycle`).
"""
from __future__ import annotations

from typing import Any, Hashable, Sequence

from hookspecs.formatting import round_half_away

MAX_APPEARANCES = 10
DESCRIPTION = ("appearances per cycle (rounded half away from zero, at least 1 for any positive weight, "
               "at most 10; 0 leaves the row out), spread over the cycle by a smooth weighted round-robin; "
               "the same meaning for slides and ticker tapes")


def appearances(weight: Any) -> int:
    """Appearances per cycle of a row of ``weight`` (see the module doc)."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
        return 0
    return min(MAX_APPEARANCES, max(1, round_half_away(weight)))


class SmoothRoundRobin:
    """nginx's smooth weighted round-robin over keys that may change between picks.

    ``pick(weighted)`` takes ``[(key, weight)]`` (weights already :func:`appearances`, those
    of 0 are skipped) and returns the chosen key, or None when no key has a weight. Scores of
    keys that are no longer offered are forgotten; a new key starts at 0.
    """

    def __init__(self) -> None:
        self.scores: dict[Hashable, int] = {}

    def pick(self, weighted: Sequence[tuple[Hashable, int]], last: Hashable = None) -> Hashable | None:
        """One pick; on a tie the first in order wins, unless it is ``last`` (the key picked
        before: a tie never repeats it, which keeps every count of a whole cycle)."""
        offered = [(key, weight) for key, weight in weighted if weight > 0]
        if not offered:
            return None
        total = sum(weight for _key, weight in offered)
        for key, weight in offered:
            self.scores[key] = self.scores.get(key, 0) + weight
        top = max(self.scores[key] for key, _weight in offered)
        tied = [key for key, _weight in offered if self.scores[key] == top]
        best = next((key for key in tied if key != last), tied[0])
        self.scores[best] -= total
        return best

    def forget(self, keep: Sequence[Hashable]) -> None:
        """Drop the scores of every key not in ``keep`` (rows that left the program)."""
        kept = set(keep)
        self.scores = {key: score for key, score in self.scores.items() if key in kept}


def smooth_cycle(weights: Sequence[Any]) -> list[int]:
    """The indices of one whole cycle over rows of ``weights`` (each raw ``frequency_weight``)."""
    counts = [appearances(weight) for weight in weights]
    robin = SmoothRoundRobin()
    return [robin.pick(list(enumerate(counts))) for _ in range(sum(counts))]  # type: ignore[misc]
