"""Linked accounts: device-code sign-in against a fake identity provider on loopback, token
storage and refresh, Google calendar listing, calendar_google, calendar_microsoft and tasks_trello."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs

from pony import orm

from svc_display.testing.clock import advance_clock
from tests.integrations.upstream import json_reply
import pytest
from hookspecs.services import INTEGRATIONS

pytestmark = pytest.mark.svc_display_storage

CLIENT_ENV = {
    "SVC_DISPLAY_GOOGLE_CLIENT_ID": "google-public-client",
    "SVC_DISPLAY_MICROSOFT_CLIENT_ID": "microsoft-public-client",
}


def _id_token(email):
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'email': email, 'sub': '1'})}.sig"


class FakeIdentityProvider:
    """Device-code and token endpoints (RFC 8628) for one provider, mounted on the upstream server."""

    def __init__(self, upstream, device_path, token_path, pending_status, email):
        self.approved = False
        self.issued = 0
        self.refreshes = []
        self.pending_status = pending_status
        self.email = email
        upstream.handle(device_path, self.device)
        upstream.handle(token_path, self.token)

    def device(self, request):
        form = parse_qs(request.body.decode())
        assert form["client_id"][0].endswith("public-client")
        return json_reply(
            200,
            {
                "device_code": "DEVICE-SECRET-CODE",
                "user_code": "WDJB-MJHT",
                "verification_uri": "https://idp.example/device",
                "expires_in": 900,
                "interval": 5,
            },
        )

    def token(self, request):
        form = parse_qs(request.body.decode())
        grant = form["grant_type"][0]
        if grant == "refresh_token":
            self.refreshes.append(form["refresh_token"][0])
            self.issued += 1
            return json_reply(
                200, {"access_token": f"access-{self.issued}", "expires_in": 3600, "token_type": "Bearer"}
            )
        assert grant == "urn:ietf:params:oauth:grant-type:device_code"
        assert form["device_code"] == ["DEVICE-SECRET-CODE"]
        if not self.approved:
            return json_reply(self.pending_status, {"error": "authorization_pending"})
        self.issued += 1
        return json_reply(
            200,
            {
                "access_token": f"access-{self.issued}",
                "refresh_token": "refresh-1",
                "expires_in": 3600,
                "token_type": "Bearer",
                "id_token": _id_token(self.email),
            },
        )


def _sign_in(api, integration_id, idp):
    started = api.post(f"/v1/integrations/{integration_id}/accounts/device-code", json={})
    assert started.status_code == 200, started.text
    body = started.json
    assert body["user_code"] == "WDJB-MJHT" and body["verification_uri"] == "https://idp.example/device"
    assert "DEVICE-SECRET-CODE" not in started.text
    poll = f"/v1/integrations/{integration_id}/accounts/device-code/{body['sign_in_id']}/poll"
    assert api.post(poll).json["status"] == "pending"
    idp.approved = True
    linked = api.post(poll).json
    assert linked["status"] == "linked"
    assert api.post(poll).status_code == 404  # a finished sign-in is forgotten
    return linked["account"]


def _google_api(upstream, seen):
    def calendar_list(request):
        seen.append(request.headers.get("Authorization"))
        if request.headers.get("Authorization", "").split(" ")[-1].startswith("access-"):
            return json_reply(
                200,
                {
                    "kind": "calendar#calendarList",
                    "items": [
                        {
                            "kind": "calendar#calendarListEntry",
                            "id": "primary@example.org",
                            "summary": "Me",
                            "primary": True,
                            "accessRole": "owner",
                            "backgroundColor": "#9fe1e7",
                        },
                        {"id": "team@group.calendar.google.com", "summary": "Team", "accessRole": "reader"},
                    ],
                },
            )
        return json_reply(401, {"error": {"code": 401, "message": "Invalid Credentials"}})

    now = datetime.now(timezone.utc).replace(microsecond=0)
    start = (now + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    end = (now + timedelta(days=1, hours=1)).isoformat().replace("+00:00", "Z")
    day = (now + timedelta(days=2)).date()

    def events(request):
        seen.append(request.headers.get("Authorization"))
        assert request.query["singleEvents"] == ["true"] and "timeMin" in request.query
        if "pageToken" not in request.query:
            return json_reply(
                200,
                {
                    "kind": "calendar#events",
                    "nextPageToken": "p2",
                    "items": [
                        {
                            "id": "evt1",
                            "status": "confirmed",
                            "summary": "Dentist",
                            "location": "Main St",
                            "start": {"dateTime": start},
                            "end": {"dateTime": end},
                        },
                        {
                            "id": "evt2",
                            "status": "cancelled",
                            "summary": "Cancelled",
                            "start": {"dateTime": start},
                            "end": {"dateTime": end},
                        },
                    ],
                },
            )
        return json_reply(
            200,
            {
                "kind": "calendar#events",
                "items": [
                    {
                        "id": "evt3",
                        "status": "confirmed",
                        "summary": "Holiday",
                        "start": {"date": day.isoformat()},
                        "end": {"date": (day + timedelta(days=1)).isoformat()},
                    }
                ],
            },
        )

    upstream.handle("/calendar/v3/users/me/calendarList", calendar_list)
    upstream.handle("/calendar/v3/calendars/primary%40example.org/events", events)
    upstream.handle("/calendar/v3/calendars/primary@example.org/events", events)
    return now, day


def test_google_device_sign_in_calendars_and_refresh(make_host, api_for, upstream, env):
    host = make_host(CLIENT_ENV)
    api = api_for(host)
    idp = FakeIdentityProvider(upstream, "/device/code", "/token", 428, "me@example.org")
    seen = []
    now, day = _google_api(upstream, seen)
    assert (
        api.patch(
            "/v1/integrations/calendar_google",
            json={
                "config_json": {
                    "baseUrl": upstream.url,
                    "authBaseUrl": upstream.url,
                    "pastDays": 1,
                    "futureDays": 10,
                    "calendars": [{"calendarId": "primary@example.org", "categoryId": "family"}],
                }
            },
        ).status_code
        == 200
    )
    assert api.get("/v1/integrations/calendar_google").json["accounts_configured"] is False

    account = _sign_in(api, "calendar_google", idp)
    assert account["label"] == "me@example.org" and account["account_type"] == "google"
    item = api.get("/v1/integrations/calendar_google").json
    assert item["accounts_configured"] is True and [a["id"] for a in item["linked_accounts"]] == [
        account["id"]
    ]
    with orm.db_session:
        cipher = host.db.IntegrationAccount[account["id"]].token_cipher
    assert (
        cipher and "access-1" not in cipher and "refresh-1" not in cipher
    )  # no keyring: encrypted in the row

    calendars = api.get(f"/v1/integration-accounts/{account['id']}/google/calendars")
    assert calendars.status_code == 200
    assert calendars.json["items"][0] == {
        "id": "primary@example.org",
        "summary": "Me",
        "primary": True,
        "access_role": "owner",
        "background_color": "#9fe1e7",
    }
    assert seen[-1] == "Bearer access-1"

    result = host.services[INTEGRATIONS].run_now("calendar_google")
    assert result.status == "ok", result
    with orm.db_session:
        events = sorted(
            (e.title, e.all_day, e.source, e.category_id, e.location) for e in host.db.CalendarEvent.select()
        )
    assert events == [
        ("Dentist", False, "calendar_google", "family", "Main St"),
        ("Holiday", True, "calendar_google", "family", ""),
    ]

    advance_clock(env, 2 * 3600 * 1000)  # the access token expired: the next use refreshes it
    assert host.services[INTEGRATIONS].run_now("calendar_google").status == "ok"
    assert idp.refreshes == ["refresh-1"] and seen[-1] == "Bearer access-2"

    assert api.delete(f"/v1/integration-accounts/{account['id']}").status_code == 200
    assert api.get("/v1/integrations/calendar_google").json["linked_accounts"] == []
    assert api.get(f"/v1/integration-accounts/{account['id']}/google/calendars").status_code == 404
    assert host.services[INTEGRATIONS].run_now("calendar_google").status == "failed"


def test_tokens_go_to_the_os_secret_store_when_one_exists(make_host, api_for, upstream, memory_keyring):
    host = make_host(CLIENT_ENV)
    api = api_for(host)
    idp = FakeIdentityProvider(upstream, "/device/code", "/token", 428, "me@example.org")
    api.patch("/v1/integrations/calendar_google", json={"config_json": {"authBaseUrl": upstream.url}})
    account = _sign_in(api, "calendar_google", idp)
    with orm.db_session:
        assert host.db.IntegrationAccount[account["id"]].token_cipher is None
    stored = [v for (service, name), v in memory_keyring.values.items() if name.startswith("oauth-token:")]
    assert len(stored) == 1 and json.loads(stored[0])["refresh_token"] == "refresh-1"
    api.delete(f"/v1/integration-accounts/{account['id']}")
    assert not [n for (_s, n) in memory_keyring.values if n.startswith("oauth-token:")]


def test_sign_in_errors(make_host, api_for, upstream):
    host = make_host()  # no client ids
    api = api_for(host)
    response = api.post("/v1/integrations/calendar_google/accounts/device-code", json={})
    assert response.status_code == 503 and response.json["code"] == "oauth_client_not_configured"
    assert api.post("/v1/integrations/news_rss/accounts/device-code", json={}).status_code == 400
    assert (
        api.post("/v1/integrations/calendar_google/accounts/device-code/nope-nope-nope/poll").status_code
        == 404
    )
    assert api.get("/v1/integration-accounts/zz/google/calendars").status_code == 404
    assert api.delete("/v1/integration-accounts/" + "a" * 32).status_code == 404
    viewer = api_for(host, "viewer")
    assert viewer.post("/v1/integrations/calendar_google/accounts/device-code", json={}).status_code == 403


def test_microsoft_device_sign_in_and_calendar_view(make_host, api_for, upstream):
    host = make_host(CLIENT_ENV)
    api = api_for(host)
    idp = FakeIdentityProvider(
        upstream, "/contoso/oauth2/v2.0/devicecode", "/contoso/oauth2/v2.0/token", 400, "user@contoso.example"
    )
    now = datetime.now(timezone.utc)
    start = (now + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.0000000")
    end = (now + timedelta(days=1, hours=1)).strftime("%Y-%m-%dT%H:%M:%S.0000000")
    day = (now + timedelta(days=3)).strftime("%Y-%m-%dT00:00:00.0000000")
    day_end = (now + timedelta(days=4)).strftime("%Y-%m-%dT00:00:00.0000000")

    def view(request):
        assert request.headers["Prefer"] == 'outlook.timezone="UTC"'
        assert request.headers["Authorization"] == "Bearer access-1"
        if request.query.get("page") == ["2"]:
            return json_reply(
                200,
                {
                    "value": [
                        {
                            "id": "AAMk2",
                            "subject": "Offsite",
                            "isAllDay": True,
                            "isCancelled": False,
                            "start": {"dateTime": day, "timeZone": "UTC"},
                            "end": {"dateTime": day_end, "timeZone": "UTC"},
                        }
                    ]
                },
            )
        return json_reply(
            200,
            {
                "@odata.context": "x",
                "@odata.nextLink": f"{upstream.url}/v1.0/me/calendarView?page=2",
                "value": [
                    {
                        "id": "AAMk1",
                        "subject": "Review",
                        "bodyPreview": "Q3",
                        "isAllDay": False,
                        "isCancelled": False,
                        "location": {"displayName": "Room 4"},
                        "start": {"dateTime": start, "timeZone": "UTC"},
                        "end": {"dateTime": end, "timeZone": "UTC"},
                    },
                    {
                        "id": "AAMk9",
                        "subject": "Gone",
                        "isCancelled": True,
                        "start": {"dateTime": start, "timeZone": "UTC"},
                        "end": {"dateTime": end, "timeZone": "UTC"},
                    },
                ],
            },
        )

    upstream.handle("/v1.0/me/calendarView", view)
    api.patch(
        "/v1/integrations/calendar_microsoft",
        json={
            "config_json": {
                "baseUrl": upstream.url,
                "authBaseUrl": upstream.url,
                "tenant": "contoso",
                "calendars": [{"calendarId": "primary", "categoryId": "work"}],
            }
        },
    )
    account = _sign_in(api, "calendar_microsoft", idp)
    assert account["label"] == "user@contoso.example"
    assert host.services[INTEGRATIONS].run_now("calendar_microsoft").status == "ok"
    with orm.db_session:
        events = sorted(
            (e.title, e.all_day, e.location, e.description, e.source) for e in host.db.CalendarEvent.select()
        )
    assert events == [
        ("Offsite", True, "", "", "calendar_microsoft"),
        ("Review", False, "Room 4", "Q3", "calendar_microsoft"),
    ]
