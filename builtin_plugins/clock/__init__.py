"""Clock: the clock slide, the digital and analog clock overlays and the date-and-time ticker tape
(declared in ``types.json``; the tape's items come from ``items.py``).

Omitted keys follow the display settings (timezone, 12h/24h, date order); the formatting is
the shared one of ``svc_host.kit.formatting``. The tape's ``showDate`` goes beyond the spec: false
shows the time alone (default true).
"""
from __future__ import annotations

from hookspecs import Feature
from hookspecs.catalog import load_types

TYPES = load_types(__name__)
FEATURE = Feature(
    types=TYPES,
)
