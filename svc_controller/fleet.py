"""The fleet (CONTRACT "The fleet"): the displays the controller keeps, and the truth about each.

- :class:`Fleet` is the registry (``ctl_display``): ``PUT/GET/DELETE /bff/v1/displays[/{id}]``.
  A display's ``apiKey`` is encrypted with the backup targets' :class:`SecretBox` (the same
  instance: one key file, one keyring entry) and never returned; its ``baseUrl`` passes the
  proxy's target rule (:class:`svc_controller.targets.TargetPolicy`) before anything is stored.
- :class:`Poller` polls every display (``GET /v1/health``, ``/v1/display/power``,
  ``/v1/display/screen``) every ``SVC_CONTROLLER_FLEET_POLL_SECONDS`` on an event loop of its
  own thread: at most ``SVC_CONTROLLER_FLEET_CONCURRENCY`` polls at once, each cut at
  :data:`POLL_BUDGET_S` however the display answers (a hung display costs one poll slot for
  that long), each answer read up to :data:`MAX_ANSWER_BYTES` (a 5 GB body is a problem
  recorded, not read). Results are stored in the row; listing reads only the rows.
- :class:`EventHub` hands each stored change to the ``GET /bff/v1/fleet/events`` streams
  (server-sent events, served on the ASGI side: :class:`EventsApp`).
"""
from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable

import httpx
from pony import orm

from hookspecs import CLOCK_HEADER
from svc_controller.storage import row, valid_display_id
from svc_controller.targets import TargetPolicy, parse_display_url, pinned_url
from svc_host.http.errors import ApiError
from svc_host.secrets import SecretBox

log = logging.getLogger("svc_controller.fleet")

POLL_BUDGET_S = 5.0
MAX_ANSWER_BYTES = 256 * 1024
CLOCK_SKEW_MS = 60_000


def unknown_status(since_ms: int) -> dict:
    return {"state": "unknown", "since_ms": since_ms, "checked_at_ms": None, "version": None, "power": None,
            "screen": None, "problems": [], "sync": None, "clock": None}


def version_key(version: str | None) -> tuple:
    """``1.12.0rc1`` -> (1, 12, 0): the leading numbers of each dotted part."""
    parts = []
    for part in (version or "").split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


class Fleet:
    def __init__(self, db: orm.Database, clock: Any, policy: TargetPolicy, secrets: SecretBox):
        self.db = db
        self.clock = clock
        self.policy = policy
        self.secrets = secrets
        self.hub = EventHub()
        self.on_upsert: Callable[[str], None] = lambda display_id: None  # the poller's poll_soon

    # -- rows -------------------------------------------------------------------------
    @staticmethod
    def item_json(display: Any) -> dict:
        status = json.loads(display.status_json) if display.status_json else unknown_status(display.created_at_ms)
        status.setdefault("sync", None)  # stored before the controller kept them
        status.setdefault("clock", None)
        return {"id": display.id, "name": display.name, "baseUrl": display.base_url,
                "group": display.group or None, "apiKeyConfigured": bool(display.api_key_encrypted),
                "status": status}

    def listing(self, group: str | None = None) -> dict:
        """``GET /bff/v1/displays``: ``{items, syncGroups}`` (:func:`mark_sync`), ``group`` the
        controller's group to list (the sync groups are always the whole fleet's)."""
        every, groups = self._marked()
        return {"items": [i for i in every if group is None or i["group"] == group], "syncGroups": groups}

    def items(self, group: str | None = None) -> list[dict]:
        return self.listing(group)["items"]

    def item(self, display: Any) -> dict:
        """One display's item, with the problem of a sync group whose programs differ (its
        group-mates read only when it reports a sync group). The item then comes from that one
        read of the fleet, never a mix of two reads: the poller may have changed its status since."""
        item = self.item_json(display)
        if sync_key(item) is None:
            return item
        found = [i for i in self._marked()[0] if i["id"] == item["id"]]
        if not found:  # deleted meanwhile
            raise ApiError(404, "not_found", "display not found")
        return found[0]

    def _marked(self) -> tuple[list[dict], list[dict]]:
        """Every display's item, read once and marked, and the sync groups (:func:`mark_sync`)."""
        every = [self.item_json(d) for d in self.db.FleetDisplay.select().order_by(lambda d: d.id)]
        return every, mark_sync(every)

    def _marked_with(self, *sync_groups: str | None) -> list[dict]:
        """The marked items of every display reporting one of ``sync_groups``."""
        return [i for i in self._marked()[0] if sync_key(i) is not None and sync_key(i)[0] in sync_groups]

    def get(self, display_id: str) -> Any:
        display = row(self.db.FleetDisplay, display_id)
        if display is None:
            raise ApiError(404, "not_found", "display not found")
        return display

    def upsert(self, display_id: str, body: dict) -> tuple[dict, bool]:
        """Create or update display ``display_id``; (item, created). Nothing is stored unless the
        id, every field and the target rule pass. Without ``apiKey`` the stored key stays;
        ``apiKey: null`` clears it. A changed ``baseUrl`` makes the status ``unknown`` again."""
        if not valid_display_id(display_id):
            raise ApiError(400, "validation_failed", "id: lower-case letters, digits and '-', at most 64",
                           {"id": ["must match [a-z0-9][a-z0-9-]{0,63}"]})
        url = parse_display_url(body["baseUrl"], "baseUrl")
        self.policy.address_for(url.host)  # 403 proxy_target_forbidden
        now = self.clock.now_ms()
        display = self.db.FleetDisplay.get(id=display_id)
        created = display is None
        if created:
            display = self.db.FleetDisplay(id=display_id, name=body["name"], base_url=body["baseUrl"],
                                           group=body.get("group") or "", created_at_ms=now)
        else:
            if display.base_url != body["baseUrl"]:
                display.base_url = body["baseUrl"]
                display.state, display.status_json = "unknown", None
            display.name = body["name"]
            if "group" in body:
                display.group = body["group"] or ""
        if "apiKey" in body:
            key = body["apiKey"]
            display.api_key_encrypted = self.secrets.encrypt(key) if key else None
        orm.flush()
        item = self.item(display)
        orm.commit()
        self.hub.publish(item)
        self.on_upsert(display_id)
        return item, created

    def delete(self, display_id: str) -> None:
        display = self.get(display_id)
        key = sync_key(self.item_json(display))
        display.delete()
        orm.commit()
        if key is not None:  # its group-mates may agree now
            for mate in self._marked_with(key[0]):
                self.hub.publish(mate)

    def connection(self, display_id: str) -> tuple[str, str | None] | None:
        """``(baseUrl, apiKey)`` of a registered display (the backup targets that follow one)."""
        with orm.db_session:
            display = self.db.FleetDisplay.get(id=display_id)
            if display is None:
                return None
            key = self.secrets.decrypt(display.api_key_encrypted) if display.api_key_encrypted else None
            return display.base_url, key

    def action_targets(self, group: str | None, ids: list[str] | None) -> list[tuple]:
        """``(id, name, baseUrl, apiKey)`` of the displays of ``group`` and/or ``ids``."""
        wanted = set(ids or ())
        with orm.db_session:
            return [(d.id, d.name, d.base_url,
                     self.secrets.decrypt(d.api_key_encrypted) if d.api_key_encrypted else None)
                    for d in self.db.FleetDisplay.select().order_by(lambda d: d.id)
                    if (group is not None and d.group == group) or d.id in wanted]

    # -- the poller's side ------------------------------------------------------------------
    def poll_targets(self) -> list[tuple[str, str, str | None]]:
        with orm.db_session:
            return [(d.id, d.base_url, self.secrets.decrypt(d.api_key_encrypted) if d.api_key_encrypted else None)
                    for d in self.db.FleetDisplay.select().order_by(lambda d: d.id)]

    def record(self, display_id: str, base_url: str, result: "PollResult", newest_version: tuple,
               alert_after_ms: int | None = None) -> tuple[dict | None, str | None]:
        """Store a poll's result: (the item when its status changed other than ``checked_at_ms``,
        the webhook event now due: ``display.down`` once a display has been unreachable or degraded
        for ``alert_after_ms``, ``display.recovered`` when one it was sent for is well again)."""
        with orm.db_session:
            display = self.db.FleetDisplay.get(id=display_id)
            if display is None or display.base_url != base_url:  # deleted or moved meanwhile
                return None, None
            problems = list(result.problems)
            if result.state != "unreachable" and result.version and version_key(result.version) < newest_version:
                newest = ".".join(str(n) for n in newest_version)
                problems.append({"code": "version_behind",
                                 "message": f"runs {result.version}; other displays run {newest}"})
            problems.extend(self._backup_problems(display_id))
            old = json.loads(display.status_json) if display.status_json else unknown_status(display.created_at_ms)
            now = self.clock.now_ms()
            status = {"state": result.state,
                      "since_ms": old["since_ms"] if old["state"] == result.state else now,
                      "checked_at_ms": now, "version": result.version, "power": result.power,
                      "screen": result.screen, "problems": problems, "sync": result.sync, "clock": result.clock}
            display.state, display.status_json = result.state, json.dumps(status)
            # the clock offset moves a little at every poll: stored, not an event of its own
            changed = {k: v for k, v in old.items() if k not in ("checked_at_ms", "clock")} != {
                k: v for k, v in status.items() if k not in ("checked_at_ms", "clock")}
            event = None
            if alert_after_ms is not None:
                if result.state in ("unreachable", "degraded"):
                    if display.alerted_since_ms is None and now - status["since_ms"] >= alert_after_ms:
                        display.alerted_since_ms, event = status["since_ms"], "display.down"
                elif display.alerted_since_ms is not None:
                    display.alerted_since_ms, event = None, "display.recovered"
            before, after = sync_key({"status": old}), sync_key({"status": status})
            if before != after:  # its sync group's marks may change: its group-mates' items too
                orm.flush()
                for mate in self._marked_with(*{k[0] for k in (before, after) if k is not None}):
                    if mate["id"] != display_id:
                        self.hub.publish(mate)
            if not changed and event is None:  # the usual poll: no item to make (no group-mates read)
                return None, None
            item = self.item(display)
            return (item if changed else None), (event and item)

    def _backup_problems(self, display_id: str) -> list[dict]:
        problems = []
        for target in self.db.BackupTarget.select(
                lambda t: t.fleet_display_id == display_id or t.display_id == display_id):
            last = json.loads(target.last_run_json) if target.last_run_json else None
            if last and last.get("status") == "failed":
                problems.append({"code": "backup_failed",
                                 "message": f"the last backup ({last.get('finishedAt')}) failed: {last.get('error')}"})
        return problems


def sync_key(item: dict) -> tuple[str, str | None] | None:
    """``(sync group, program_hash)`` of a display that answered with a sync group, else None."""
    status = item["status"]
    sync = status.get("sync")
    if status["state"] in ("unreachable", "unknown") or not sync or not sync.get("group"):
        return None
    return sync["group"], sync.get("program_hash")


def _short(program_hash: str | None) -> str:
    return program_hash[:8] if program_hash else "(none)"


def _names(members: list[dict], shown: int = 3) -> str:
    """``First, Second`` / ``First, Second, Third and 4 more`` and the verb: a problem stays short
    in a group of hundreds."""
    names = ", ".join(m["name"] for m in members[:shown])
    if len(members) > shown:
        names += f" and {len(members) - shown} more"
    return f"{names} {'runs' if len(members) == 1 else 'run'}"


def mark_sync(items: list[dict]) -> list[dict]:
    """The sync groups of ``items`` (CONTRACT "Displays in step"), each ``{group, displayIds,
    programsDiffer, programs: [{programHash, displayIds}]}`` (the most shared program first); and
    on each member of a group whose programs differ, a ``programs_differ`` problem naming the
    group and who runs what. Members: the displays answering with a non-empty sync group."""
    groups: dict[str, list[dict]] = {}
    for item in items:
        key = sync_key(item)
        if key is not None:
            groups.setdefault(key[0], []).append(item)
    out = []
    for name in sorted(groups):
        members = groups[name]
        programs: dict[str | None, list[dict]] = {}
        for member in members:
            programs.setdefault(sync_key(member)[1], []).append(member)
        ranked = sorted(programs.items(), key=lambda kv: (-len(kv[1]), kv[0] or ""))
        out.append({"group": name, "displayIds": [m["id"] for m in members], "programsDiffer": len(programs) > 1,
                    "programs": [{"programHash": h, "displayIds": [m["id"] for m in ms]} for h, ms in ranked]})
        if len(programs) > 1:
            for program_hash, same in ranked:
                others = "; ".join(f"{_names(ms)} {_short(h)}" for h, ms in ranked if h != program_hash)
                for member in same:
                    member["status"]["problems"].append({
                        "code": "programs_differ",
                        "message": f"programs differ in sync group {name}: this display runs {_short(program_hash)}; "
                                   f"{others}"})
    return out


@dataclass
class PollResult:
    state: str
    version: str | None = None
    power: dict | None = None
    screen: dict | None = None
    problems: tuple = ()
    sync: dict | None = None
    clock: dict | None = None


class BadAnswer(Exception):
    """The display answered, but not like a display (``str()`` says how)."""


async def exchange(client: httpx.AsyncClient, method: str, url: str, parts: dict,
                   body: Any = None, limit: int = MAX_ANSWER_BYTES,
                   on_headers: Callable[[httpx.Response], Any] | None = None) -> tuple[httpx.Response, bytes]:
    """One request to a display and its answer's body, read up to ``limit`` bytes
    (:class:`BadAnswer` past that, declared or sent). ``parts``: :func:`display_request`'s;
    ``on_headers`` (async) is called as the answer's headers arrive."""
    request = client.build_request(method, url, headers=parts["headers"], extensions=parts["extensions"], json=body)
    response = await client.send(request, stream=True)
    if on_headers is not None:
        await on_headers(response)
    try:
        length = response.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise BadAnswer(f"{request.url.path} answered {int(length)} bytes (more than {limit})")
        data = bytearray()
        async for chunk in response.aiter_raw():
            data += chunk
            if len(data) > limit:
                raise BadAnswer(f"{request.url.path} answered more than {limit} bytes")
    finally:
        await response.aclose()
    return response, bytes(data)


async def read_json(client: httpx.AsyncClient, url: str, parts: dict,
                    now_ms: Callable[[], int] | None = None) -> tuple[int, Any, httpx.Headers, tuple[int, int] | None]:
    """``(status, JSON object or None, response headers, (sent_ms, answered_ms))`` of ``GET url``: the
    last on the controller's clock (``now_ms``; None without it), from the request's start to its
    answer's headers. :class:`BadAnswer` for a body past the bound, or anything but a JSON object on 200."""
    sent = now_ms() if now_ms else None
    answered: list[int] = []

    async def headers_in(response: httpx.Response) -> None:
        if now_ms:
            answered.append(now_ms())

    response, body = await exchange(client, "GET", url, parts, on_headers=headers_in)
    timing = (sent, answered[0]) if sent is not None and answered else None
    if response.status_code != 200:
        return response.status_code, None, response.headers, timing
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # not JSON; or nested deeper than Python parses
        raise BadAnswer(f"{response.request.url.path} answered 200 without JSON") from None
    if not isinstance(data, dict):
        raise BadAnswer(f"{response.request.url.path} answered 200 with JSON that is not an object")
    return 200, data, response.headers, timing


def _text(value: Any, limit: int = 300) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def clock_offset(date: str | None, timing: tuple[int, int] | None, clock_ms: str | None = None) -> dict | None:
    """The display's clock minus the controller's, from its answer and the controller's times of
    the request (``timing``): ``{offset_ms, error_ms}`` or None without them.

    A display sends its clock in epoch ms (``clock_ms``, the ``X-Svc-Clock-Ms`` header of
    ``/v1/health``), read somewhere between the request's start and its answer: the offset is its
    distance from the middle of that, within half the round trip. Older releases send only
    ``Date``:

    ``Date`` names a whole second ``D``, and a server may write it up to a second before it sends
    it (uvicorn refreshes it once a second), so the display's clock read in ``[D, D + 2000)`` as
    it answered, somewhere between the request's start and its answer on the controller's clock:
    the offset is the middle of what that allows and ``error_ms`` half its width (a second and
    half the round trip). Hand-written: no library reads a clock offset from an HTTP date."""
    if timing is None:
        return None
    sent, answered = timing
    if clock_ms is not None and clock_ms.isascii() and clock_ms.isdigit() and len(clock_ms) <= 16:
        return {"offset_ms": int(clock_ms) - (sent + answered) // 2, "error_ms": (answered - sent + 1) // 2}
    if not date:
        return None
    try:
        display_ms = int(email.utils.parsedate_to_datetime(date).timestamp()) * 1000
    except (TypeError, ValueError, OverflowError):
        return None
    return {"offset_ms": display_ms + 1000 - (sent + answered) // 2,
            "error_ms": 1000 + (answered - sent + 1) // 2}


def _sync(screen: dict) -> dict | None:
    """The ``sync`` of a display's screen status (CONTRACT "Displays in step"), bounded; None when
    it has none (an older release) or not an object."""
    sync = screen.get("sync")
    if not isinstance(sync, dict):
        return None
    cycle = sync.get("cycle_ms")
    return {"group": _text(sync.get("group"), 64) or None, "program_hash": _text(sync.get("program_hash"), 128),
            "cycle_ms": cycle if isinstance(cycle, int) and not isinstance(cycle, bool) else None}


def judge(health: tuple, power: tuple, screen: tuple) -> PollResult:
    """A reachable display's state and problems from its three answers (:func:`read_json`'s)."""
    problems: list[dict] = []
    status, data, headers, timing = health
    if status != 200:
        raise BadAnswer(f"/v1/health answered {status}")
    version = _text(data.get("version"), 64)
    clock = clock_offset(headers.get("date"), timing, headers.get(CLOCK_HEADER))
    if clock is not None and abs(clock["offset_ms"]) > CLOCK_SKEW_MS:
        problems.append({"code": "clock_off", "message": f"the display's clock is {abs(clock['offset_ms']) // 1000} s "
                                                         f"{'ahead' if clock['offset_ms'] > 0 else 'behind'}"})
    for name, (code, *_) in (("power", power), ("screen", screen)):
        if code in (401, 403):
            problems.append({"code": "api_key_rejected",
                             "message": f"the display refused the stored API key ({code} on /v1/display/{name})"})
    power_out = None
    state = "online"
    if power[1] is not None:
        power_out = {"state": _text(power[1].get("state"), 16), "reason": _text(power[1].get("reason"), 16),
                     "next_change_at_ms": power[1].get("next_change_at_ms")
                     if isinstance(power[1].get("next_change_at_ms"), int) else None}
        if power_out["state"] == "off":
            state = "off"
            problems.append({"code": "panel_off",
                             "message": f"the panel is off on purpose ({power_out['reason'] or 'no reason given'})"})
    screen_out = sync = None
    if screen[1] is not None:
        body = screen[1]
        skipped = [s for s in body.get("skipped") or [] if isinstance(s, dict)] if isinstance(
            body.get("skipped"), list) else []
        failing = [f for f in body.get("failing") or [] if isinstance(f, dict)] if isinstance(
            body.get("failing"), list) else []
        screen_out = {"state": _text(body.get("state"), 32),
                      "current": body.get("current") if isinstance(body.get("current"), dict) else None,
                      "skipped": len(skipped), "failing": len(failing)}
        sync = _sync(body)
        reasons = []
        if screen_out["state"] == "nothing_to_show":
            reasons.append("nothing to show")
        reasons += [f"{s.get('screen_id')}: {_text(s.get('message')) or s.get('reason')}" for s in skipped[:3]]
        reasons += [f"{f.get('kind')} {f.get('type')}: {_text(f.get('message'))}" for f in failing[:3]]
        if reasons:
            problems.append({"code": "screen_degraded", "message": "; ".join(str(r) for r in reasons)})
            if state == "online":
                state = "degraded"
    return PollResult(state, version, power_out, screen_out, tuple(problems), sync, clock)


async def display_request(policy: TargetPolicy, base_url: str, key: str | None) -> tuple[str, dict]:
    """The display's base URL pinned to its checked address (the target rule, 403 ``ApiError``
    otherwise), and ``{headers, extensions}`` for httpx: ``Host`` and TLS SNI keep the name, the
    key goes in ``Authorization``."""
    url = parse_display_url(base_url, "baseUrl")
    address = await asyncio.to_thread(policy.address_for, url.host)
    headers = {"Host": url.netloc}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    extensions = {"sni_hostname": url.host} if url.scheme == "https" and address != url.host else {}
    return pinned_url(url, address, ""), {"headers": headers, "extensions": extensions}


class Poller:
    """Polls the fleet on an event loop of its own thread (started and stopped by ``serve``)."""

    def __init__(self, fleet: Fleet, period_s: float, concurrency: int, webhook: Any = None,
                 budget_s: float = POLL_BUDGET_S):
        self.fleet = fleet
        self.period_s = period_s
        self.concurrency = concurrency
        self.budget_s = budget_s
        self.webhook = webhook  # svc_controller.webhook.Webhook, or None when no URL is set
        self._sending: set[asyncio.Task] = set()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._in_flight: set[str] = set()
        self._versions: dict[str, tuple] = {}
        self._soon: set[str] = set()
        self._wake: asyncio.Event | None = None
        fleet.on_upsert = self.poll_soon

    def poll_soon(self, display_id: str) -> None:
        """Poll ``display_id`` now rather than at the next round (a display just added or changed)."""
        if self._loop is not None and self._wake is not None:
            def wake() -> None:
                self._soon.add(display_id)
                self._wake.set()
            try:
                self._loop.call_soon_threadsafe(wake)
            except RuntimeError:  # the loop has stopped
                pass

    def start(self) -> None:
        ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main(ready)), name="fleet-poller",
                                        daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(self.budget_s + 5)

    async def _main(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._semaphore = asyncio.Semaphore(self.concurrency)
        ready.set()
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=self.concurrency * 3,
                              keepalive_expiry=2)
        tasks: set[asyncio.Task] = set()
        async with httpx.AsyncClient(verify=False, trust_env=False, follow_redirects=False, limits=limits,
                                     timeout=self.budget_s) as client, httpx.AsyncClient(
                trust_env=False, follow_redirects=False, timeout=10) as self._client:  # the webhook's: verified
            loop = asyncio.get_running_loop()
            next_round = loop.time()
            while not self._stopping.is_set():
                only = None
                if loop.time() >= next_round:
                    next_round = loop.time() + self.period_s
                else:
                    only, self._soon = self._soon, set()
                try:
                    targets = await asyncio.to_thread(self.fleet.poll_targets)
                except Exception:  # noqa: BLE001  (a busy database: the next round may do)
                    log.exception("fleet: reading the displays failed")
                    targets = []
                for target in targets:
                    if target[0] in self._in_flight or (only is not None and target[0] not in only):
                        continue  # still within its budget from the last round; or not asked for now
                    self._in_flight.add(target[0])
                    task = asyncio.create_task(self._poll_and_store(client, *target))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                self._wake.clear()
                waits = [asyncio.create_task(self._stopping.wait()), asyncio.create_task(self._wake.wait())]
                await asyncio.wait(waits, timeout=max(0.0, next_round - loop.time()),
                                   return_when=asyncio.FIRST_COMPLETED)
                for wait in waits:
                    wait.cancel()
            for task in list(tasks) + list(self._sending):
                task.cancel()
            await asyncio.gather(*tasks, *self._sending, return_exceptions=True)

    async def _poll_and_store(self, client: httpx.AsyncClient, display_id: str, base_url: str,
                              key: str | None) -> None:
        try:
            async with self._semaphore:
                result = await self.poll(client, base_url, key)
            if result.state != "unreachable" and result.version:
                self._versions[display_id] = version_key(result.version)
            newest = max(self._versions.values(), default=())
            alert_after = self.webhook.alert_after_ms if self.webhook is not None else None
            item, event = await asyncio.to_thread(self.fleet.record, display_id, base_url, result, newest, alert_after)
            if item is not None:
                self.fleet.hub.publish(item)
            if event is not None and self.webhook is not None:
                kind = "display.down" if event["status"]["state"] in ("unreachable", "degraded") else "display.recovered"
                task = asyncio.create_task(self.webhook.send(self._client, kind, event))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001
            log.exception("fleet: polling display %s failed", display_id)
        finally:
            self._in_flight.discard(display_id)

    async def poll(self, client: httpx.AsyncClient, base_url: str, key: str | None) -> PollResult:
        """One display's three answers within :attr:`budget_s`; never raises."""
        try:
            async with asyncio.timeout(self.budget_s):
                base, parts = await display_request(self.fleet.policy, base_url, key)
                answers = await asyncio.gather(*(
                    read_json(client, base + path, parts, self.fleet.clock.now_ms)
                    for path in ("/v1/health", "/v1/display/power", "/v1/display/screen")))
            return judge(*answers)
        except TimeoutError:
            why = f"no answer within {self.budget_s:g} s"
        except ApiError as exc:
            why = exc.message
        except BadAnswer as exc:
            return PollResult("unreachable", problems=({"code": "bad_answer",
                                                        "message": f"not a display's answer: {exc}"},))
        except httpx.HTTPError as exc:
            why = f"cannot be reached ({type(exc).__name__})"
        return PollResult("unreachable", problems=({"code": "unreachable", "message": why},))


# -- server-sent events ------------------------------------------------------------------------
class EventHub:
    """Status changes to every open event stream; :meth:`publish` may be called from any thread."""

    QUEUE = 1000

    def __init__(self) -> None:
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self._guard = threading.Lock()

    def subscribe(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue]:
        entry = (asyncio.get_running_loop(), asyncio.Queue(self.QUEUE))
        with self._guard:
            self._subscribers.add(entry)
        return entry

    def unsubscribe(self, entry: tuple) -> None:
        with self._guard:
            self._subscribers.discard(entry)

    def publish(self, item: dict) -> None:
        with self._guard:
            subscribers = list(self._subscribers)
        for loop, queue in subscribers:
            try:
                loop.call_soon_threadsafe(_offer, queue, item)
            except RuntimeError:  # its loop is closed
                self.unsubscribe((loop, queue))


def _offer(queue: asyncio.Queue, item: dict | None) -> None:
    try:
        queue.put_nowait(item)
    except asyncio.QueueFull:  # a reader that does not read: end its stream (EventSource reconnects)
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(None)


def sse_frame(event: str, data: Any) -> bytes:
    """One server-sent event; ``data`` as one line of JSON (JSON text holds no raw newline)."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class EventsApp:
    """``GET /bff/v1/fleet/events`` on the ASGI side: a stream holds no worker thread. On connect,
    one ``status`` event per display (the stored state), then each change; a comment line every
    :attr:`heartbeat_s` keeps proxies from closing it and finds a client gone."""

    PATH = "/bff/v1/fleet/events"
    heartbeat_s = 15.0

    def __init__(self, fleet: Fleet, authorize: Callable[[list[tuple[str, str]]], None]):
        self.fleet = fleet
        self.authorize = authorize

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        from svc_host.http.errors import error_body

        if scope["method"] not in ("GET", "HEAD"):
            return await _json(send, 405, error_body("method_not_allowed", "GET only"), [(b"allow", b"GET")])
        try:
            await asyncio.to_thread(self.authorize, [(n.decode("latin-1"), v.decode("latin-1"))
                                                     for n, v in scope.get("headers", [])])
        except ApiError as exc:
            return await _json(send, exc.status, error_body(exc.code, exc.message))
        entry = self.fleet.hub.subscribe()
        try:
            def current() -> list[dict]:
                with orm.db_session:
                    return self.fleet.items()

            items = await asyncio.to_thread(current)
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no")]})
            await send({"type": "http.response.body", "more_body": True,
                        "body": b"retry: 3000\n\n" + b"".join(sse_frame("status", item) for item in items)})
            disconnected = asyncio.create_task(_disconnected(receive))
            queue = entry[1]
            try:
                while not disconnected.done():
                    getter = asyncio.create_task(queue.get())
                    done, _ = await asyncio.wait({getter, disconnected}, timeout=self.heartbeat_s,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    if getter not in done:
                        getter.cancel()
                        if not disconnected.done():
                            await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})
                        continue
                    item = getter.result()
                    if item is None:
                        break
                    await send({"type": "http.response.body", "body": sse_frame("status", item), "more_body": True})
            finally:
                disconnected.cancel()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass
        finally:
            self.fleet.hub.unsubscribe(entry)


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _json(send: Any, status: int, body: dict, headers: list | None = None) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": data})
