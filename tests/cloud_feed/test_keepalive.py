"""Keep-alive comments of the feed are no events (in-process host, a loopback feed stub)."""
from __future__ import annotations

import json
import sys
import threading
import time

from svc_display.testing.upstream import Reply
from hookspecs.services import CLOUD_FEED, INTEGRATION_TELEMETRY

JOKE = {"kind": "joke", "id": "j1", "setup": "s", "punchline": "p", "category_id": "general"}
# httpx-sse keeps the last event id across events (as the SSE spec says) and so hands a comment
# followed by a blank line over as an event with no data: it was logged as a skipped malformed
# event and moved last_event_at_ms every 15 s
STREAM = (f"id: 1\nevent: upsert\ndata: {json.dumps(JOKE)}\n\n: keep-alive\n\n: keep-alive\n\n").encode()


class RecordingClock:
    """The host's clock, answering 1000, 2000, ... and noting which function asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        with self._lock:
            value = 1000 * (len(self.calls) + 1)
            self.calls.append((sys._getframe(1).f_code.co_name, value))
            return value


def test_keep_alive_comments_are_not_logged_as_malformed_and_do_not_move_last_event(make_host, upstream):
    gate = threading.Event()
    served: list[int] = []

    def feed(_request):
        gate.wait(30)  # until the test has put its clock in
        served.append(1)
        if len(served) > 1:
            return Reply(503, {"Content-Type": "text/plain"}, b"once only")
        return Reply(200, {"Content-Type": "text/event-stream"}, STREAM)

    upstream.handle("/v1/displays/lobby/feed", feed)
    host = make_host({"SVC_SAAS_MODE": "1", "SVC_SAAS_API_URL": upstream.url, "SVC_SAAS_DISPLAY_ID": "lobby",
                      "SVC_SAAS_API_KEY": "k", "SVC_SAAS_RECONNECT_MIN_MS": "50"})
    clock = host.clock = RecordingClock()
    gate.set()
    telemetry = host.services[INTEGRATION_TELEMETRY]
    deadline = time.monotonic() + 30  # a stall bound
    while not any("closed by the server" in line["message"] for line in telemetry.lines()):
        assert time.monotonic() < deadline, telemetry.lines()
        time.sleep(0.05)
    messages = [line["message"] for line in telemetry.lines()]
    assert not [m for m in messages if "skipped" in m], messages
    assert [m for m in messages if m.startswith("event ")] == ["event 1: upsert joke j1"]
    handled = [value for caller, value in clock.calls if caller == "_handle"]
    assert len(handled) == 1 and host.services[CLOUD_FEED].last_event_at_ms == handled[0]
