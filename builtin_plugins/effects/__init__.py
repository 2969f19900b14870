"""Decorative overlay effects: shape rain, birthday confetti, a bouncing message, falling images,
matrix rain, an edge glow, floating balloons and drifting clouds (spec 2.3), declared in
``types.json`` and drawn by ``display.py``. Their config keys are snake_case, like the
``birthday_confetti`` keys the interface fixes; phrase-based effects keep their phrases in
``messages``."""
from __future__ import annotations

from hookspecs import Feature
from hookspecs.catalog import load_types

TYPES = load_types(__name__)
FEATURE = Feature(
    types=TYPES,
    samples="builtin_plugins.effects.samples:write",
)
