"""A hung display against the controller's proxy: another display's latency, and the
controller's own health, while ``--hung`` proxied requests wait on a display that accepts
TCP and never answers, and ``--pulls`` pull-nows wait on it too (docs/reliability.md).

Starts one real ``svc-controller serve`` (plain HTTP, auth off, the default 180 s upstream
timeout) and two loopback upstreams (tests/controller/upstream.py): a hung one and a healthy
one. Measures ``--requests`` sequential proxied ``GET /v1/echo`` to the healthy display and
``GET /bff/v1/health``, idle, then with the hung requests and pulls in flight; prints median
and max and the ratio of the medians (the issue's bound: a hung display never delays another
display or the controller's own routes by more than 1 s).

    .venv/bin/python benchmarks/proxy_hung.py [--hung 260] [--pulls 16] [--requests 30]
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.controllers import ControllerProcess  # noqa: E402
from tests.controller.upstream import Upstream  # noqa: E402


def timed(call) -> float:  # noqa: ANN001
    started = time.perf_counter()
    response = call()
    assert response.status_code == 200, response.text
    return time.perf_counter() - started


def measure(ctl: ControllerProcess, healthy: Upstream, count: int) -> dict[str, list[float]]:
    session = requests.Session()
    echo = lambda: session.get(ctl.url + "/bff/v1/proxy/v1/echo", headers={"X-Svc-Display-Url": healthy.url},
                               timeout=300)  # noqa: E731
    health = lambda: session.get(ctl.url + "/bff/v1/health", timeout=300)  # noqa: E731
    return {"other display": [timed(echo) for _ in range(count)],
            "controller health": [timed(health) for _ in range(count)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hung", type=int, default=260)
    parser.add_argument("--pulls", type=int, default=16)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="proxy-hung-"))
    ctl = ControllerProcess(root / "data", {"SVC_CONTROLLER_TLS": "0",
                                            "SVC_CONTROLLER_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "2000",
                                            "SVC_CONTROLLER_SCHEDULER_TICK_MS": "3600000"}).start()
    held: list[socket.socket] = []
    try:
        with Upstream() as hung, Upstream() as healthy:
            measure(ctl, healthy, 5)  # warm up
            idle = measure(ctl, healthy, args.requests)
            head = (f"GET /bff/v1/proxy/v1/hang HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"X-Svc-Display-Url: {hung.url}\r\n\r\n").encode()
            for _ in range(args.hung):
                held.append(socket.create_connection(("127.0.0.1", ctl.port), timeout=30))
                held[-1].sendall(head)
            for index in range(args.pulls):
                target = ctl.request("PUT", "/bff/v1/backup-targets", json={
                    "displayId": f"hung-{index}", "baseUrl": hung.url, "apiKey": "svc_hung"}).json()
                held.append(socket.create_connection(("127.0.0.1", ctl.port), timeout=30))
                held[-1].sendall(f"POST /bff/v1/backup-targets/{target['id']}/pull-now HTTP/1.1\r\n"
                                 f"Host: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".encode())
            time.sleep(1)  # the hung requests and pulls have reached the hung display
            loaded = measure(ctl, healthy, args.requests)
            hung.release_jobs.set()
            for sock in held:
                sock.close()
    finally:
        ctl.stop(timeout=10)
    print(f"proxy_hung: {args.hung} proxied requests and {args.pulls} pull-nows held by a hung display, "
          f"{args.requests} sequential requests each, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':>18} {'idle p50':>9} {'idle max':>9} {'hung p50':>9} {'hung max':>9} {'p50 ratio':>10}")
    worst = 0.0
    for label in idle:
        before, after = idle[label], loaded[label]
        worst = max(worst, max(after))
        print(f"{label:>18} {statistics.median(before) * 1000:>9.1f} {max(before) * 1000:>9.1f} "
              f"{statistics.median(after) * 1000:>9.1f} {max(after) * 1000:>9.1f} "
              f"{statistics.median(after) / statistics.median(before):>10.2f}")
    print(f"worst latency with the display hung: {worst * 1000:.1f} ms "
          f"({'within' if worst < 1 else 'NOT within'} the issue's 1 s)")


if __name__ == "__main__":
    main()
