"""Every builtin collector against a failing upstream: 500, timeout, malformed, oversized, redirect loop.

Each fault must end the run as a failure (never an exception out of the engine), show in
telemetry under the collector's integration_type, back the integration off, and leave the
host answering.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from pony import orm

from tests.integrations.conftest import fast_limits
from tests.integrations.fault_setups import SETUPS
from svc_host.http_client import HttpClient, HttpFailure
from tests.integrations.upstream import FAULTS
from hookspecs.services import INTEGRATION_TELEMETRY


def test_every_builtin_collector_has_a_fault_setup(host):
    builtin = {
        type_id
        for type_id, owner in host.registries.integration_types.owner.items()
        if host.plugins.info[owner].builtin
    }
    assert builtin == set(SETUPS)


@pytest.mark.parametrize("type_id", sorted(SETUPS))
def test_faults_are_contained_reported_and_backed_off(type_id, host, api, upstream):
    engine = fast_limits(host)
    upstream.slow_seconds = 2.0
    SETUPS[type_id](host, upstream)
    telemetry = host.services[INTEGRATION_TELEMETRY]
    for kind in FAULTS:
        upstream.fault(kind)
        with orm.db_session:
            host.db.Integration[type_id].set(consecutive_failures=0, next_retry_at=None)
            for feed in host.db.RssFeed.select():
                feed.set(consecutive_failures=0, next_retry_at=None)
        before = len(upstream.requests)
        since = host.clock.now_ms()
        result = engine.run_now(type_id)
        assert len(upstream.requests) > before, f"{type_id} sent nothing to the upstream ({kind})"
        assert result.status == "failed", (kind, result)
        with orm.db_session:
            row = host.db.Integration[type_id]
            assert row.consecutive_failures == 1, kind
            assert row.next_retry_at > host.clock.now_ms(), kind
            assert row.last_error, kind
        errors = [
            line
            for line in telemetry.lines(2000, since)
            if line["channel"] == "error" and line.get("integration_type") == type_id
        ]
        assert errors, (kind, telemetry.lines(20))
        assert api.get("/v1/health").status_code == 200
        assert api.get("/v1/integrations").status_code == 200


def test_a_trickling_upstream_cannot_outlive_the_total_deadline(upstream):
    """One byte every 0.1 s for 40 s: each byte beats the read timeout, the total deadline ends it."""
    upstream.fault("trickle")
    client = HttpClient(read_timeout=5.0, total_timeout=1.5)
    try:
        with pytest.raises(HttpFailure, match="timed out reading"):
            client.get(upstream.url + "/feed.xml")
    finally:
        client.close()
    time.sleep(0.5)  # the upstream's next writes find the connection gone
    assert upstream.trickled < upstream.trickle_bytes / 2  # cut off, not waited out


class HeaderTrickle:
    """An upstream on 127.0.0.1 that reads the request, then sends its status line and headers
    one byte a second (each byte beats the client's read timeout), never ending them."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.sent = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/feed.xml"

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nX-Padding: " + b"a" * 100
            for byte in head:
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return  # the client hung up
                self.sent += 1
                time.sleep(1.0)

    def close(self) -> None:
        self.listener.close()


def test_an_upstream_trickling_its_headers_cannot_outlive_the_total_deadline():
    upstream = HeaderTrickle()
    client = HttpClient(read_timeout=5.0, total_timeout=2.5)
    try:
        with pytest.raises(HttpFailure, match="timed out"):
            client.get(upstream.url)
    finally:
        client.close()
        upstream.thread.join(5)  # its next byte finds the connection gone
        upstream.close()
    assert upstream.sent <= 6, upstream.sent  # about one byte per second of the deadline, not the whole head


def test_a_trickling_feed_leaves_its_integration_free_after_the_deadline(host, upstream):
    engine = fast_limits(host, run_timeout=30.0)  # the run's own deadline is far: the client's ends it
    SETUPS["news_rss"](host, upstream)
    upstream.fault("trickle")
    result = engine.run_now("news_rss")
    assert result.status == "failed" and "timed out" in (result.message or ""), result
    upstream.fault(None)
    assert engine.run_now("news_rss").status != "busy"
