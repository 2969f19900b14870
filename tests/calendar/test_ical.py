"""calendar_ical: RRULE/RDATE/EXDATE/RECURRENCE-ID expansion in the day window, all-day, TZID."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from pony import orm
from hookspecs.services import INTEGRATIONS, SETTINGS

NY = ZoneInfo("America/New_York")


def _fmt(value: datetime) -> str:
    return value.strftime("%Y%m%dT%H%M%S")


def ics(today) -> tuple[str, dict]:
    first = datetime.combine(today + timedelta(days=1), datetime.min.time(), NY).replace(hour=9)
    weekly = [first + timedelta(weeks=i) for i in range(4)]
    extra = first + timedelta(days=2, hours=6)
    allday = today + timedelta(days=3)
    old = today - timedelta(days=400)
    body = f"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//svc-display tests//EN
BEGIN:VEVENT
UID:standup@example.org
DTSTAMP:20240101T000000Z
DTSTART;TZID=America/New_York:{_fmt(first)}
DTEND;TZID=America/New_York:{_fmt(first + timedelta(minutes=15))}
RRULE:FREQ=WEEKLY;COUNT=4
EXDATE;TZID=America/New_York:{_fmt(weekly[1])}
RDATE;TZID=America/New_York:{_fmt(extra)}
SUMMARY:Standup
LOCATION:Room 1
END:VEVENT
BEGIN:VEVENT
UID:standup@example.org
DTSTAMP:20240101T000000Z
RECURRENCE-ID;TZID=America/New_York:{_fmt(weekly[2])}
DTSTART;TZID=America/New_York:{_fmt(weekly[2] + timedelta(hours=2))}
DTEND;TZID=America/New_York:{_fmt(weekly[2] + timedelta(hours=2, minutes=15))}
SUMMARY:Moved standup
END:VEVENT
BEGIN:VEVENT
UID:holiday@example.org
DTSTAMP:20240101T000000Z
DTSTART;VALUE=DATE:{allday.strftime("%Y%m%d")}
DTEND;VALUE=DATE:{(allday + timedelta(days=1)).strftime("%Y%m%d")}
SUMMARY:Holiday
DESCRIPTION:Office closed
END:VEVENT
BEGIN:VEVENT
UID:old@example.org
DTSTAMP:20240101T000000Z
DTSTART:{_fmt(datetime.combine(old, datetime.min.time()))}Z
DURATION:PT1H
SUMMARY:Long ago
END:VEVENT
END:VCALENDAR
""".replace("\n", "\r\n")
    return body, {"weekly": weekly, "extra": extra, "allday": allday}


def ms(value: datetime) -> int:
    return int(value.timestamp() * 1000)


def _events(host):
    with orm.db_session:
        return sorted(
            (
                {**e.to_dict(), "cats": sorted(c.category_id for c in e.categories)}
                for e in host.db.CalendarEvent.select()
            ),
            key=lambda e: e["start_ms"],
        )


def test_ical_expands_recurrences_in_the_window(host, upstream):
    today = datetime.now(timezone.utc).date()
    body, when = ics(today)
    upstream.reply("/cal.ics", body, "text/calendar")
    with orm.db_session:
        host.db.Integration["calendar_ical"].config_json = {
            "calendars": [{"url": upstream.url + "/cal.ics", "categoryId": "family"}],
            "pastDays": 7,
            "futureDays": 60,
        }
    result = host.services[INTEGRATIONS].run_now("calendar_ical")
    assert result.status == "ok", result
    events = _events(host)
    summary = [(e["title"], e["start_ms"], e["all_day"]) for e in events]
    weekly = when["weekly"]
    expected = sorted(
        [
            ("Standup", ms(weekly[0]), False),
            ("Standup", ms(when["extra"]), False),
            ("Moved standup", ms(weekly[2] + timedelta(hours=2)), False),
            ("Standup", ms(weekly[3]), False),
            ("Holiday", ms(datetime.combine(when["allday"], datetime.min.time(), timezone.utc)), True),
        ],
        key=lambda e: e[1],
    )
    assert summary == expected
    holiday = next(e for e in events if e["title"] == "Holiday")
    assert holiday["end_ms"] - holiday["start_ms"] == 86_400_000 and holiday["description"] == "Office closed"
    standup = next(e for e in events if e["title"] == "Standup")
    assert standup["end_ms"] - standup["start_ms"] == 15 * 60_000 and standup["location"] == "Room 1"
    assert all(
        e["source"] == "calendar_ical"
        and e["category_id"] == "family"
        and e["cats"] == ["family"]
        and e["integration_id"] == "calendar_ical"
        for e in events
    )
    # idempotent, then a shorter window drops what falls out of it; a category change follows
    assert host.services[INTEGRATIONS].run_now("calendar_ical").status == "ok"
    assert _events(host) == events
    with orm.db_session:
        host.db.Integration["calendar_ical"].config_json = {
            "icsUrl": upstream.url + "/cal.ics",
            "categoryId": "work",
            "pastDays": 0,
            "futureDays": 5,
        }
    assert host.services[INTEGRATIONS].run_now("calendar_ical").status == "ok"
    short = _events(host)
    assert {e["title"] for e in short} <= {"Standup", "Holiday"}
    assert all(e["start_ms"] < ms(datetime.now(timezone.utc) + timedelta(days=5)) for e in short)
    assert all(e["cats"] == ["work"] for e in short)


def test_ical_all_day_follows_the_display_timezone(host, upstream):
    today = datetime.now(timezone.utc).date()
    body, when = ics(today)
    upstream.reply("/cal.ics", body, "text/calendar")
    with orm.db_session:
        host.services[SETTINGS].set("display_timezone", "Asia/Tokyo")
        host.db.Integration["calendar_ical"].config_json = {"icsUrl": upstream.url + "/cal.ics"}
    assert host.services[INTEGRATIONS].run_now("calendar_ical").status == "ok"
    holiday = next(e for e in _events(host) if e["title"] == "Holiday")
    assert holiday["start_ms"] == ms(
        datetime.combine(when["allday"], datetime.min.time(), ZoneInfo("Asia/Tokyo"))
    )
    assert holiday["category_id"] == "calendar"
