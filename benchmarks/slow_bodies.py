"""Slow request bodies: ``/v1/health`` latency while 500 sockets each send headers,
``Content-Length: 200`` and one byte, against the same server idle (docs/reliability.md).

Starts one real ``svc-display serve`` process (plain HTTP, SQLite in a temporary data dir,
headless, default limits) and measures, one after the other:

- ``one address``: the 500 slow sockets all from 127.0.0.1 (the per-address bounds answer
  most of them at once: 128 connections held, of which 32 wait for their body);
- ``500 addresses``: each slow socket from its own source address (127.0.1.1, 127.0.1.2, ...:
  all of loopback is local), so no per-address bound applies and all 500 wait on the event
  loop for their body.

Health is asked from 127.0.0.2. Prints the latency of the first health request after the
sockets are open (the issue's "answered within a second"), then median and max of
``--requests`` sequential ones, idle and loaded, and the ratio of the medians.

``--controller`` does the same against a real ``svc-controller serve`` (plain HTTP, auth on):
the slow sockets send the headers of ``POST /bff/v1/auth/login`` and one byte, health is
``GET /bff/v1/health`` (issue 26, item 1).

    .venv/bin/python benchmarks/slow_bodies.py [--sockets 500] [--requests 50] [--controller]
"""
from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import ServerProcess  # noqa: E402

SLOW_HEAD = (b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 200\r\n\r\n{")
SLOW = SLOW_HEAD % b"/v1/adoption/confirm"
HEALTH = "/v1/health"
CLIENT = "127.0.0.2"


def health_latency(port: int) -> float:
    """One ``GET /v1/health`` on a new connection from CLIENT, in seconds."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(CLIENT, 0))
    try:
        connection.request("GET", HEALTH)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
    finally:
        connection.close()
    return time.perf_counter() - started


def latencies(port: int, count: int) -> list[float]:
    return [health_latency(port) for _ in range(count)]


def open_slow(port: int, count: int, spread: bool) -> list[socket.socket]:
    held = []
    for index in range(count):
        source = f"127.0.{1 + index // 250}.{1 + index % 250}" if spread else "127.0.0.1"
        sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
        sock.sendall(SLOW)
        held.append(sock)
    return held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=500)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--controller", action="store_true", help="svc-controller instead of svc-display")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="slow-bodies-")
    if args.controller:
        global SLOW, HEALTH
        from tests.controllers import ControllerProcess

        SLOW, HEALTH = SLOW_HEAD % b"/bff/v1/auth/login", "/bff/v1/health"
        server = ControllerProcess(Path(root) / "data", {
            "SVC_CONTROLLER_TLS": "0", "SVC_CONTROLLER_AUTH_ENABLED": "1",
            "SVC_CONTROLLER_SESSION_SECRET": "s" * 40}).start()
    else:
        server = ServerProcess({"SVC_DISPLAY_DATA_DIR": root + "/data", "SVC_DISPLAY_HEADLESS": "1",
                                "SVC_DISPLAY_HTTP_TLS": "0", "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"}).start()
    rows = []
    try:
        latencies(server.port, 10)  # warm up
        for label, spread in (("one address", False), (f"{args.sockets} addresses", True)):
            idle = latencies(server.port, args.requests)
            held = open_slow(server.port, args.sockets, spread)
            try:
                first = health_latency(server.port)
                loaded = latencies(server.port, args.requests)
            finally:
                for sock in held:
                    sock.close()
            rows.append((label, first, idle, loaded))
            time.sleep(1)  # the closed sockets are gone before the next idle measurement
    finally:
        server.stop()
    print(f"slow_bodies{' --controller' if args.controller else ''}: {args.sockets} slow sockets, "
          f"{args.requests} sequential health requests "
          f"from {CLIENT}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'slow sockets from':>18} {'first ms':>9} {'idle p50':>9} {'idle max':>9} {'slow p50':>9} "
          f"{'slow max':>9} {'p50 ratio':>10}")
    for label, first, idle, loaded in rows:
        ratio = statistics.median(loaded) / statistics.median(idle)
        print(f"{label:>18} {first * 1000:>9.1f} {statistics.median(idle) * 1000:>9.1f} "
              f"{max(idle) * 1000:>9.1f} {statistics.median(loaded) * 1000:>9.1f} {max(loaded) * 1000:>9.1f} "
              f"{ratio:>10.2f}")
    worst = max(max(first, max(loaded)) for _label, first, _idle, loaded in rows)
    print(f"worst health latency under slow sockets: {worst * 1000:.1f} ms "
          f"({'within' if worst < 1 else 'NOT within'} the issue's 1 s)")


if __name__ == "__main__":
    main()
