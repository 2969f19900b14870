"""calendar_nutrislice: a school's meal menu from a loopback stub replaying a recorded weeks answer
(``nutrislice_week.json``, dates moved to the requested week) as all-day calendar events."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from pony import orm

from hookspecs.services import INTEGRATIONS
from svc_host.kit.services import display_zone
from svc_display.testing.upstream import Reply

pytestmark = pytest.mark.svc_display_storage
RECORDED = json.loads((Path(__file__).parent / "nutrislice_week.json").read_text())
PATH = "/menu/api/weeks/school/lincoln-elementary/menu-type/lunch/{:%Y/%m/%d}/"


def _week(answer: dict, asked: date) -> bytes:
    """The recorded answer moved to the week (Sunday to Saturday) holding ``asked``."""
    if not isinstance(answer["days"], list):
        return json.dumps(answer).encode()
    shift = asked - timedelta(days=(asked.weekday() + 1) % 7) - date.fromisoformat(answer["start_date"])
    days = [{**day, "date": (date.fromisoformat(day["date"]) + shift).isoformat()} for day in answer["days"]]
    return json.dumps({**answer, "days": days}).encode()


def _serve(host, upstream, answer: dict) -> date:
    today = datetime.fromtimestamp(host.clock.now_ms() / 1000, display_zone(host)).date()
    for week in range(4):
        asked = today + timedelta(weeks=week)
        upstream.handle(PATH.format(asked), lambda _request, asked=asked: Reply(
            200, {"Content-Type": "application/json"}, _week(answer, asked)))
    return today


def _events(host):
    with orm.db_session:
        return sorted(((e.start_ms, e.end_ms, e.title, e.description, e.all_day, e.category_id,
                        sorted(c.category_id for c in e.categories)) for e in host.db.CalendarEvent.select()))


def _run(host, **config):
    with orm.db_session:
        host.db.Integration["calendar_nutrislice"].config_json = {
            "baseUrl": config.pop("baseUrl"), "district": "springfield", "school": "lincoln-elementary", **config}
    return host.services[INTEGRATIONS].run_now("calendar_nutrislice")


def test_school_meals_become_all_day_events(host, upstream):
    today = _serve(host, upstream, RECORDED)
    assert _run(host, baseUrl=upstream.url).status == "ok"
    assert [r.path for r in upstream.requests] == [PATH.format(today), PATH.format(today + timedelta(weeks=1))]
    zone = display_zone(host)
    sunday = today - timedelta(days=(today.weekday() + 1) % 7)

    def day_ms(offset: int) -> int:
        return int(datetime.combine(sunday + timedelta(days=offset), datetime.min.time(), zone).timestamp() * 1000)

    week = [
        (1, "Lunch: Cheese Pizza, Chicken Nuggets, Garden Salad",
         "Entrees: Cheese Pizza, Chicken Nuggets\nSides: Garden Salad"),
        (2, "Lunch: Tacos & Rice", "Tacos & Rice"),
        (3, "No school - Thanksgiving break", "No school - Thanksgiving break"),
    ]
    expected = sorted((day_ms(w * 7 + d), day_ms(w * 7 + d + 1), title, text, True, "school-meals", ["school-meals"])
                      for w in (0, 1) for d, title, text in week)
    assert _events(host) == expected
    # idempotent; then one week, a label and a category: the second week goes
    assert _run(host, baseUrl=upstream.url).status == "ok" and _events(host) == expected
    assert _run(host, baseUrl=upstream.url, weeks=1, label="Menu", categoryId="kids").status == "ok"
    one = _events(host)
    assert [e[2] for e in one] == ["Menu: Cheese Pizza, Chicken Nuggets, Garden Salad", "Menu: Tacos & Rice",
                                   "No school - Thanksgiving break"]
    assert {e[5] for e in one} == {"kids"}


def test_a_malformed_menu_answer_changes_nothing(host, upstream):
    _serve(host, upstream, RECORDED)
    assert _run(host, baseUrl=upstream.url, weeks=1).status == "ok"
    before = _events(host)
    _serve(host, upstream, {"start_date": RECORDED["start_date"], "days": "not a list"})
    result = _run(host, baseUrl=upstream.url, weeks=1)
    assert result.status == "failed" and "days" in result.message, result
    assert _events(host) == before
