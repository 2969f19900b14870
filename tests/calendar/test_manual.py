"""Calendar events entered by hand over HTTP (spec 4.5): epoch or ISO times, categories."""
import pytest
from pony import orm
from hookspecs.services import SETTINGS


pytestmark = pytest.mark.svc_display_storage


def test_calendar_event_epoch_and_iso(api, host):
    api.post("/v1/curator/categories", json={"id": "family", "label": "Family"})
    by_ms = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Dinner", "start_ms": 1_700_000_000_000, "end_ms": 1_700_003_600_000, "all_day": False,
        "category_id": "calendar", "location": "Home", "description": "pasta"})
    assert by_ms.status_code == 201, by_ms.text
    by_iso = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Trip", "start_ms": "2026-01-02T10:00:00Z", "end_ms": "2026-01-02T12:30:00+01:00",
        "all_day": True, "category_ids": ["family", "calendar"]})
    assert by_iso.status_code == 201, by_iso.text
    with orm.db_session:
        first = host.db.CalendarEvent[by_ms.json["id"]]
        assert (first.start_ms, first.end_ms, first.source) == (1_700_000_000_000, 1_700_003_600_000, "manual_entry")
        assert first.category_id == "calendar" and first.location == "Home"
        second = host.db.CalendarEvent[by_iso.json["id"]]
        assert second.start_ms == 1_767_348_000_000 and second.end_ms == 1_767_353_400_000
        assert second.all_day is True and second.category_id == "family"
        assert [c.category_id for c in second.categories] == ["calendar"]


def test_calendar_naive_iso_uses_display_timezone(api, host):
    with orm.db_session:
        host.services[SETTINGS].set("display_timezone", "Europe/Berlin")
    result = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Local", "start_ms": "2026-07-01T09:00:00", "end_ms": "2026-07-01", "category_id": "calendar"})
    assert result.status_code == 400  # ends before it starts
    result = api.post("/v1/curator/manual/calendar-events", json={
        "title": "Local", "start_ms": "2026-07-01T09:00:00", "end_ms": "2026-07-01T10:00", "category_id": "calendar"})
    assert result.status_code == 201
    with orm.db_session:
        assert host.db.CalendarEvent[result.json["id"]].start_ms == 1_782_889_200_000  # 07:00 UTC


@pytest.mark.parametrize("change,field", [
    ({"start_ms": "yesterday"}, "start_ms"),
    ({"start_ms": True}, "start_ms"),
    ({"start_ms": -1}, "start_ms"),
    ({"start_ms": 1.5}, "start_ms"),
    ({"end_ms": 10**20}, "end_ms"),
    ({"end_ms": 5}, "end_ms"),
    ({"category_id": "nope"}, "category_id"),
    ({"category_id": None}, "category_id"),
    ({"title": ""}, "title"),
])
def test_calendar_validation(api, host, change, field):
    body = {"title": "T", "start_ms": 1000, "end_ms": 2000, "all_day": False, "category_id": "calendar", **change}
    result = api.post("/v1/curator/manual/calendar-events", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"]
    with orm.db_session:
        assert host.db.CalendarEvent.select().count() == 0


def test_calendar_needs_a_category(api):
    result = api.post("/v1/curator/manual/calendar-events", json={"title": "T", "start_ms": 1, "end_ms": 2})
    assert result.status_code == 400
    result = api.post("/v1/curator/manual/calendar-events",
                      json={"title": "T", "start_ms": 1, "end_ms": 2, "category_ids": ["calendar", "ghost"]})
    assert result.status_code == 400 and "category_ids" in result.json["details"]


def test_the_agenda_title_names_the_calendar_once(api, host):
    """The agenda's title is ``<category> calendar``, and the reserved category "Calendar" alone
    (it said "Calendar calendar")."""
    from builtin_plugins.calendar.display import _prepare_agenda
    from hookspecs.render import Preferences

    api.post("/v1/curator/categories", json={"id": "family", "label": "Family"})
    for category in ("calendar", "family"):
        assert api.post("/v1/curator/manual/calendar-events", json={
            "title": "Dinner", "start_ms": host.clock.now_ms() + 3_600_000, "end_ms": host.clock.now_ms() + 7_200_000,
            "category_id": category}).status_code == 201
    titles = {}
    for category in ("calendar", "family"):
        row = {"id": category, "screen_type": "calendar_agenda", "data_key": category, "config_json": {}}
        with orm.db_session:
            titles[category] = _prepare_agenda(Preferences().context(host, "screen", "calendar_agenda", row))["title"]
    assert titles == {"calendar": "Calendar", "family": "Family calendar"}
