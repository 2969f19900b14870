"""Proof of play (CONTRACT "Displays in step, and proof of play"): every slide, alert and overlay
the canvas showed, persisted in the display's database. See docs/display.md, "Proof of play".

- table ``svc_play`` (:func:`define_entities`): one row per play, written when it ends:
  ``kind`` (``slide``, ``alert``, ``overlay``), ``screen_id``, ``screen_type``, ``label``,
  ``started_ms``, ``ended_ms``, ``complete``, with the indexes of its reads (pages in start
  order, one screen's plays); a new table, made with the entity: no migration;
- ``host.services[PLAYS]`` (:class:`~builtin_plugins.plays.recorder.PlayRecorder`): the slide
  program's telemetry (``display_program``), the alerts and the overlays layers report what they
  show; a writer thread of its own inserts the plays in batches and keeps the table bounded
  (:data:`~builtin_plugins.plays.recorder.KEEP_DAYS` days, ``SVC_DISPLAY_PLAYS_MAX_ROWS`` rows,
  oldest dropped first);
- ``GET /v1/telemetry/plays`` (``telemetry.read``): a page of plays as JSON or, with
  ``Accept: text/csv``, the same rows as CSV (:mod:`.routes`).
"""
from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs import Feature, Setting, hookimpl
from hookspecs.permissions import TELEMETRY_READ, declare
from hookspecs.services import PLAYS

from builtin_plugins.plays import routes
from builtin_plugins.plays.recorder import ID_MAX, LABEL_MAX, TABLE, TYPE_MAX, PlayRecorder

MS = {"size": 64}
DEFAULT_MAX_ROWS = 600_000  # 90 days of 15 s slides; 70 days of 10 s ones


def define_entities(db: Any) -> None:
    class Play(db.Entity):
        _table_ = TABLE
        id = orm.PrimaryKey(int, auto=True, **MS)
        kind = orm.Required(str, 16)
        screen_id = orm.Required(str, ID_MAX)
        screen_type = orm.Optional(str, TYPE_MAX, default="")
        label = orm.Optional(str, LABEL_MAX, default="")
        started_ms = orm.Required(int, **MS)
        ended_ms = orm.Required(int, **MS)
        complete = orm.Required(bool)
        orm.composite_index(started_ms, id)  # pages in start order, the oldest dropped first
        orm.composite_index(screen_id, started_ms)  # one screen's plays


@hookimpl
def startup(host: Any) -> None:
    if not host.routes:  # a CLI command's host (no canvas either): nothing to record
        return
    recorder = PlayRecorder(host, host.settings.plugin_values("plays").plays_max_rows)
    host.services[PLAYS] = recorder
    recorder.start()


FEATURE = Feature(
    permissions=declare(TELEMETRY_READ),
    settings=[Setting("SVC_DISPLAY_PLAYS_MAX_ROWS", int, DEFAULT_MAX_ROWS,
                      "plays kept at most (oldest dropped first; also never older than 90 days)",
                      low=100, high=100_000_000)],
    entities=define_entities,
    routes=routes.routes,
    stops=[PLAYS],
)
