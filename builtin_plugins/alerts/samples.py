"""A sample alert for ``svc-display gallery`` (the ``display_samples`` hook), severe enough for
the ``alerts`` slide's example (``minSeverity: warning``). Neither is ``critical``: that level takes
the whole screen (docs/display.md, "Composition: the rule"), which would hide every sample slide."""
from __future__ import annotations

from typing import Any
from hookspecs.services import ALERTS


def write(host: Any) -> None:
    alerts = host.services[ALERTS]
    alerts.raise_alert(title="Fire drill at 14:00", body="Please leave by the nearest exit and meet in the car park.",
                       severity="warning", source="api")
    alerts.raise_alert(title="Lift out of service", body="Lift B is being repaired until Friday; use lift A.",
                       severity="warning", priority=5, source="api")
