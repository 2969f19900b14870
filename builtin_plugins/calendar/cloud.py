"""``calendar_google`` and ``calendar_microsoft``: signed-in accounts, selected calendars.

Config: ``calendars`` = ``[{calendarId, categoryId, accountId?}]`` (each selected calendar
has its content category; ``accountId`` picks one of several linked accounts, default the
first), ``pastDays`` (7) and ``futureDays`` (60), ``baseUrl`` (the API), ``authBaseUrl`` and
for Microsoft ``tenant`` (the identity provider, used by sign-in and token refresh).

- Google Calendar API v3: ``GET {baseUrl}/calendar/v3/calendars/<id>/events`` with
  ``timeMin``, ``timeMax``, ``singleEvents=true`` (recurrences expanded by Google),
  paged with ``nextPageToken``; cancelled events are skipped; ``start.date`` is all-day.
- Microsoft Graph: ``GET {baseUrl}/v1.0/me/calendars/<id>/calendarView`` (``primary``:
  ``/v1.0/me/calendarView``) with ``startDateTime``/``endDateTime`` and
  ``Prefer: outlook.timezone="UTC"``, paged with ``@odata.nextLink``; ``isAllDay`` events
  are stored as all-day dates.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any
from urllib.parse import quote

from hookspecs.collect import CollectorError, HttpFailure
from svc_host.kit.collecting import each_unit
from builtin_plugins.calendar.store import (
    display_zone,
    drop_calendars,
    event,
    replace_events,
    to_ms,
    window,
)
from hookspecs.services import ACCOUNTS

GOOGLE_API = "https://www.googleapis.com"
GRAPH_API = "https://graph.microsoft.com"
MAX_PAGES = 20


def _iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _account_for(ctx: Any, account_type: str, wanted: str | None) -> str:
    accounts = [a for a in ctx.accounts if a["account_type"] == account_type]
    if wanted:
        accounts = [a for a in accounts if a["id"] == wanted]
    if not accounts:
        raise CollectorError(f"no signed-in {account_type} account" + (f" {wanted}" if wanted else ""))
    return accounts[0]["id"]


def _headers(ctx: Any, account_id: str) -> dict[str, str]:
    accounts = ctx.host.services.get(ACCOUNTS)
    try:
        return accounts.bearer(account_id)
    except Exception as exc:  # noqa: BLE001 - AccountError and friends: a clean collector failure
        raise CollectorError(f"account {account_id}: {exc}") from None


def _each_calendar(ctx: Any, source: str, account_type: str, fetch: Any) -> str:
    items = list(ctx.config.get("calendars") or [])
    if not items:
        ctx.summary = "no calendar selected"
        return ctx.summary

    def one(item: dict) -> str:
        account_id = _account_for(ctx, account_type, item.get("accountId"))
        events = fetch(item["calendarId"], _headers(ctx, account_id))
        key = f"{account_id}|{item['calendarId']}"
        return f"{replace_events(ctx, source, key, events, item['categoryId'])} events"

    run = each_unit(ctx, items, one, lambda item: f"calendar {item.get('label') or item['calendarId']}",
                    catch=(HttpFailure, CollectorError, KeyError, TypeError, ValueError))
    drop_calendars(
        ctx,
        source,
        [f"{_safe_account(ctx, account_type, i.get('accountId'))}|{i['calendarId']}" for i in items],
    )
    return run.finish(ctx, "calendars", "no calendar selected")


def _safe_account(ctx: Any, account_type: str, wanted: str | None) -> str:
    try:
        return _account_for(ctx, account_type, wanted)
    except CollectorError:
        return ""


# ---- Google ---------------------------------------------------------------------------------


def _google_time(value: Any, zone: Any) -> tuple[int, bool]:
    if not isinstance(value, dict):
        raise ValueError("event without start/end")
    if value.get("dateTime"):
        return to_ms(datetime.fromisoformat(str(value["dateTime"]).replace("Z", "+00:00")), zone), False
    if value.get("date"):
        return to_ms(date.fromisoformat(str(value["date"])), zone), True
    raise ValueError("event time has neither dateTime nor date")


def collect_google(ctx: Any) -> str:
    base = ctx.base_url(GOOGLE_API)
    start, end = window(ctx)
    zone = display_zone(ctx)

    def fetch(calendar_id: str, headers: dict) -> list[dict]:
        events, page = [], None
        for _ in range(MAX_PAGES):
            params = {
                "timeMin": _iso(start),
                "timeMax": _iso(end),
                "singleEvents": "true",
                "orderBy": "startTime",
                "maxResults": 2500,
                **({"pageToken": page} if page else {}),
            }
            data = ctx.http.get_json(
                f"{base}/calendar/v3/calendars/{quote(calendar_id, safe='')}/events",
                params=params,
                headers=headers,
            )
            if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
                raise CollectorError("the events answer is not {items: [...]}")
            for item in data.get("items", []):
                if not isinstance(item, dict) or item.get("status") == "cancelled" or not item.get("id"):
                    continue
                begin, all_day = _google_time(item.get("start"), zone)
                finish, _ = _google_time(item.get("end") or item.get("start"), zone)
                events.append(event(str(item["id"]), item.get("summary"), begin, finish, all_day,
                                    item.get("location"), item.get("description")))
            page = data.get("nextPageToken")
            if not isinstance(page, str) or not page:
                break
        return events

    return _each_calendar(ctx, "calendar_google", "google", fetch)


# ---- Microsoft ------------------------------------------------------------------------------


def _graph_time(value: Any, all_day: bool, zone: Any) -> int:
    if not isinstance(value, dict) or not value.get("dateTime"):
        raise ValueError("event without start/end dateTime")
    text = str(value["dateTime"])
    head, _, fraction = text.partition(".")
    parsed = datetime.fromisoformat(head + ("." + fraction[:6] if fraction else ""))
    if all_day:
        return to_ms(parsed.date(), zone)
    return to_ms(parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed, zone)


def collect_microsoft(ctx: Any) -> str:
    base = ctx.base_url(GRAPH_API)
    start, end = window(ctx)
    zone = display_zone(ctx)

    def fetch(calendar_id: str, headers: dict) -> list[dict]:
        path = (
            "/v1.0/me/calendarView"
            if calendar_id == "primary"
            else f"/v1.0/me/calendars/{quote(calendar_id, safe='')}/calendarView"
        )
        url: str | None = base + path
        params: dict | None = {
            "startDateTime": _iso(start),
            "endDateTime": _iso(end),
            "$top": 500,
            "$select": "id,subject,bodyPreview,location,start,end,isAllDay,isCancelled",
        }
        events = []
        for _ in range(MAX_PAGES):
            if url is None:
                break
            data = ctx.http.get_json(
                url, params=params, headers={**headers, "Prefer": 'outlook.timezone="UTC"'}
            )
            if not isinstance(data, dict) or not isinstance(data.get("value", []), list):
                raise CollectorError("the calendarView answer is not {value: [...]}")
            for item in data.get("value", []):
                if not isinstance(item, dict) or item.get("isCancelled") or not item.get("id"):
                    continue
                all_day = bool(item.get("isAllDay"))
                begin = _graph_time(item.get("start"), all_day, zone)
                finish = _graph_time(item.get("end") or item.get("start"), all_day, zone)
                location = item.get("location") if isinstance(item.get("location"), dict) else {}
                events.append(event(str(item["id"]), item.get("subject"), begin, finish, all_day,
                                    location.get("displayName"), item.get("bodyPreview")))
            next_link = data.get("@odata.nextLink")
            url, params = (
                (next_link, None)
                if isinstance(next_link, str) and next_link.startswith(base)
                else (None, None)
            )
        return events

    return _each_calendar(ctx, "calendar_microsoft", "microsoft", fetch)
