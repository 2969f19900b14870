"""``GET /v1/integration-accounts/{account_id}/google/calendars``: the calendars of a signed-in
Google account (Google Calendar API v3 ``calendarList``), for picking what ``calendar_google``
collects. The account, its token and the HTTP client come from the integrations plugin's
services; the Google client is the calendar feature's, like the collector in ``cloud.py``."""
from __future__ import annotations

import re
from typing import Any

import falcon

from builtin_plugins.calendar.cloud import GOOGLE_API
from hookspecs import Operation, Route
from hookspecs.collect import AccountError, HttpFailure, UpstreamStatus
from hookspecs.permissions import INTEGRATIONS_READ
from hookspecs.services import ACCOUNTS, INTEGRATIONS, service
from svc_host.kit.rest import ApiError, not_found

ACCOUNT_ID = re.compile(r"^[a-f0-9]{32}$")
MAX_PAGES = 10


def calendar_list(http: Any, base: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    """Every calendar of the account (``users/me/calendarList``, paged); HttpFailure on a bad answer."""
    items, page = [], None
    for _ in range(MAX_PAGES):
        params = {"maxResults": 250, **({"pageToken": page} if page else {})}
        data = http.get_json(base.rstrip("/") + "/calendar/v3/users/me/calendarList", params=params,
                             headers=headers)
        if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
            raise HttpFailure("the calendar list is not {items: [...]}")
        for item in data.get("items", []):
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                items.append({
                    "id": item["id"],
                    "summary": str(item.get("summaryOverride") or item.get("summary") or item["id"]),
                    "primary": bool(item.get("primary")),
                    "access_role": str(item.get("accessRole") or ""),
                    "background_color": item.get("backgroundColor"),
                })
        page = data.get("nextPageToken")
        if not isinstance(page, str) or not page:
            break
    return items


class GoogleCalendars:
    """Calendars of a signed-in Google account, from the calendar_google integration's baseUrl."""

    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response, account_id: str) -> None:
        accounts, engine = service(self.host, ACCOUNTS), service(self.host, INTEGRATIONS)
        if accounts is None or engine is None:
            raise ApiError(503, "integrations_unavailable", "the integrations engine is not running")
        account = accounts.account(account_id) if ACCOUNT_ID.match(account_id or "") else None
        if account is None or account["account_type"] != "google":
            raise not_found("account")
        base = account["config"].get("baseUrl")  # a test's upstream, else Google
        try:
            headers = accounts.bearer(account_id)
            items = calendar_list(engine.http, base if isinstance(base, str) else GOOGLE_API, headers)
        except AccountError as exc:
            raise ApiError(exc.status, exc.code, str(exc)) from None
        except UpstreamStatus as exc:
            code = "oauth_token_unavailable" if exc.status in (401, 403) else "upstream_error"
            raise ApiError(409 if exc.status in (401, 403) else 502, code, str(exc)) from None
        except HttpFailure as exc:
            raise ApiError(502, "upstream_error", str(exc)) from None
        resp.media = {"items": items}


def routes(host: Any) -> list[Route]:
    return [Route("/v1/integration-accounts/{account_id}/google/calendars", GoogleCalendars(host), {
        "GET": Operation(INTEGRATIONS_READ, "Calendars of a signed-in Google account", tags=["integrations"])},
        db_session=False)]
