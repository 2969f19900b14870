"""Bulk actions on a group of displays (``POST /bff/v1/fleet/actions``, docs/controller.md "Groups
and bulk actions").

Each display is asked with its stored key, at most ``SVC_CONTROLLER_FLEET_CONCURRENCY`` at once,
each within :data:`ACTION_BUDGET_S` however it answers: a hung display is reported
``timed_out`` and never holds up the rest. The answer lists every display's result: ``done``,
``failed`` (with the display's reason) or ``timed_out``. :func:`each_display` is that bound,
shared with the plays export (svc_controller/plays.py).
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

import httpx

from svc_controller.fleet import MAX_ANSWER_BYTES, BadAnswer, Fleet, display_request, exchange
from svc_host.http.errors import ApiError

ACTION_BUDGET_S = 10.0
# one display's part of a group route: (client, its pinned base URL, display_request's parts, its id)
Work = Callable[[httpx.AsyncClient, str, dict, str], Awaitable[None]]
ACTIONS = ("raise_alert", "clear_alerts", "set_power_schedule", "pause_program", "resume_program")
# the curator configuration the controller's pause adds (an exclusive layer with the screens and
# the ticker off); resume turns it off again
PAUSE_ID = "svc-controller-pause"
PAUSE = {"name": "Paused from the controller", "layer": "exclusive", "enabled": True, "screens_enabled": False,
         "ticker_enabled": False}


class Failed(Exception):
    """The display refused; ``str()`` is its reason."""


async def call(client: httpx.AsyncClient, base: str, parts: dict, method: str, path: str,
               body: Any = None, limit: int = MAX_ANSWER_BYTES) -> tuple[int, Any]:
    """``(status, parsed JSON or None)`` of one request to a display (:func:`exchange`)."""
    response, data = await exchange(client, method, base + path, parts, body, limit)
    try:
        parsed = json.loads(data) if data else None
    except (ValueError, RecursionError):  # not JSON; or JSON nested deeper than Python parses
        parsed = None
    return response.status_code, parsed


def accepted(status: int, body: Any, path: str, *expected: int) -> Any:
    """``body`` when ``status`` is one of ``expected``; :class:`Failed` naming the display's answer otherwise."""
    if status in expected:
        return body
    reason = body.get("message") if isinstance(body, dict) and isinstance(body.get("message"), str) else None
    code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else None
    raise Failed(f"{path} answered {status}{' ' + code if code else ''}{': ' + reason[:300] if reason else ''}")


async def _act(client: httpx.AsyncClient, base: str, parts: dict, action: str, body: dict) -> None:
    if action == "raise_alert":
        accepted(*await call(client, base, parts, "POST", "/v1/alerts", body["alert"]), "/v1/alerts", 200, 201)
    elif action == "clear_alerts":
        alerts = accepted(*await call(client, base, parts, "GET", "/v1/alerts"), "/v1/alerts", 200)
        if not isinstance(alerts, dict) or not isinstance(alerts.get("items"), list):
            raise BadAnswer("/v1/alerts answered 200 without a list of alerts")
        items = alerts["items"]
        for alert in items:
            if isinstance(alert, dict) and alert.get("dismissed_at") is None and isinstance(alert.get("id"), (str, int)):
                path = f"/v1/alerts/{alert['id']}"
                accepted(*await call(client, base, parts, "DELETE", path), path, 200, 204, 404)
    elif action == "set_power_schedule":
        path = "/v1/display/power/schedule"
        accepted(*await call(client, base, parts, "PUT", path, {"schedule": body["schedule"]}), path, 200)
    elif action == "pause_program":
        path = "/v1/curator/configurations"
        status, answer = await call(client, base, parts, "POST", path, {"id": PAUSE_ID, **PAUSE})
        if status == 409:  # paused before: on again
            path = f"{path}/{PAUSE_ID}"
            fields = {k: v for k, v in PAUSE.items() if k != "layer"}
            status, answer = await call(client, base, parts, "PATCH", path, fields)
        accepted(status, answer, path, 200, 201)
    elif action == "resume_program":
        path = f"/v1/curator/configurations/{PAUSE_ID}"
        accepted(*await call(client, base, parts, "PATCH", path, {"enabled": False}), path, 200, 404)


async def _one(client: httpx.AsyncClient, semaphore: asyncio.Semaphore, fleet: Fleet, target: tuple,
               work: Work, budget_s: float) -> dict:
    display_id, name, base_url, key = target
    out: dict[str, Any] = {"id": display_id, "name": name}
    if key is None:
        return {**out, "result": "failed", "reason": "no API key is stored for this display"}
    try:
        async with semaphore:  # waiting for a slot is not the display's time
            async with asyncio.timeout(budget_s):
                base, parts = await display_request(fleet.policy, base_url, key)
                await work(client, base, parts, display_id)
        return {**out, "result": "done"}
    except TimeoutError as exc:  # the display's budget, or a shorter one its work set (which says so)
        return {**out, "result": "timed_out", "reason": str(exc) or f"no answer within {budget_s:g} s"}
    except (Failed, BadAnswer) as exc:
        return {**out, "result": "failed", "reason": str(exc)}
    except ApiError as exc:
        return {**out, "result": "failed", "reason": exc.message}
    except httpx.HTTPError as exc:
        return {**out, "result": "failed", "reason": f"the display cannot be reached ({type(exc).__name__})"}


def each_display(fleet: Fleet, targets: list[tuple], work: Work, concurrency: int, budget_s: float,
                 timeout_s: float | None = None) -> list[dict]:
    """``await work(client, base, parts, display_id)`` for each of ``targets`` (``(id, name, baseUrl,
    apiKey)``, :meth:`Fleet.action_targets`), at most ``concurrency`` at once, each within
    ``budget_s`` (``timeout_s``: httpx's timeout of each read, default ``budget_s``); each
    display's ``{id, name, result, reason?}`` in the order of ``targets``. The shared bound of
    every route that asks a group of displays (bulk actions, the plays export)."""

    async def all_of_them() -> list[dict]:
        semaphore = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(verify=False, trust_env=False, follow_redirects=False,
                                     timeout=timeout_s or budget_s) as client:
            return await asyncio.gather(*(_one(client, semaphore, fleet, t, work, budget_s) for t in targets))

    return asyncio.run(all_of_them())


def run(fleet: Fleet, body: dict, concurrency: int, budget_s: float = ACTION_BUDGET_S) -> dict:
    """Apply ``body["action"]`` to the displays ``body`` names (a group, or ids); every result."""
    targets = fleet.action_targets(body.get("group"), body.get("displayIds"))
    if not targets:
        raise ApiError(404, "not_found", "no display of the fleet matches this group or these ids")

    async def act(client: httpx.AsyncClient, base: str, parts: dict, _display_id: str) -> None:
        await _act(client, base, parts, body["action"], body)

    items = each_display(fleet, targets, act, concurrency, budget_s)
    counts = {kind: sum(1 for i in items if i["result"] == kind) for kind in ("done", "failed", "timed_out")}
    return {"action": body["action"], "items": items, **counts}
