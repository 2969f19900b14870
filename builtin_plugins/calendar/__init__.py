"""Calendar: events from ICS feeds, Google and Microsoft calendars and manual entry, with their
categories, and the slides and overlays that show them.

- tables (``models.py``): ``CalendarEvent`` (catalog, spec 2.8), ``CalendarEventCategory``;
- collectors: ``calendar_ical`` (``ical.py``), ``calendar_google``, ``calendar_microsoft``
  (``cloud.py``), ``calendar_nutrislice`` (school meals, ``nutrislice.py``), writing through
  ``store.py`` (one display timezone for all-day events);
- REST: ``POST /v1/curator/manual/calendar-events`` (``manual.py``), ``GET
  /v1/integration-accounts/{account_id}/google/calendars`` (``google.py``, the Google client);
- types (``types.json``): slides ``calendar_agenda``, ``calendar_month``; overlays
  ``calendar_month``, ``calendar_upcoming``; the four collectors;
- content list (``content.py``): ``calendar-events`` (catalog, moderation deletes, the
  ``category_in_use_calendar`` guard of curator categories, cloud feed kind ``calendar_event``).
"""
from __future__ import annotations

from typing import Any

from builtin_plugins.calendar import content, google, manual, models
from hookspecs import Feature, Operation, Route, hookimpl
from hookspecs.catalog import load_types
from hookspecs.permissions import CURATOR_WRITE, INTEGRATIONS_READ, declare
from svc_host.kit.rest import IdSchema


@hookimpl
def register_routes(host: Any) -> list[Route]:
    return [Route("/v1/curator/manual/calendar-events", manual.CalendarEventResource(host), {
        "POST": Operation(CURATOR_WRITE, "add a calendar event", body=manual.CalendarEventBody,
                          response=IdSchema, status=201, tags=("curator",), publishes=("catalog",))}),
            *google.routes(host)]


TYPES = load_types(__name__)
FEATURE = Feature(
    # INTEGRATIONS_READ: the Google calendar list
    permissions=declare(CURATOR_WRITE, INTEGRATIONS_READ),
    entities=models.define_entities,
    types=TYPES,
    content_lists=content.LISTS,
    samples="builtin_plugins.calendar.samples:write",
)
