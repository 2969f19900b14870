"""REST throughput: authenticated ``GET /v1/screens`` (50 screens) against a bare route.

Starts one real ``svc-display serve`` process over HTTPS (SQLite in a temporary data dir,
headless) with the example ``hello`` plugin installed into a temporary ``--target`` folder
on its ``PYTHONPATH``, seeds 50 screens, then drives both routes from this (second) process
with the same client: ``--connections`` keep-alive connections on threads, alternating
rounds of ``--seconds`` per route so drift hits both equally. Prints requests per second,
p50/p99 latency per route and the ratio screens/hello (goal: at least 0.6).

    .venv/bin/python benchmarks/rest_throughput.py [--seconds 5] [--rounds 3] [--connections 4]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
import urllib3

REPO = Path(__file__).resolve().parents[1]
GOAL = 0.6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def install_hello(target: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    str(REPO / "examples" / "hello-plugin")], check=True)


def start_server(data_dir: Path, plugin_dir: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1",
           "SVC_DISPLAY_HTTP_PORT": str(port), "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1",
           "SVC_DISPLAY_LOG_LEVEL": "WARNING",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin_dir), str(REPO), os.environ.get("PYTHONPATH")]))}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    log = open(data_dir.parent / "server.log", "ab")
    return subprocess.Popen([sys.executable, "-m", "svc_host", "serve"], env=env, stdout=log,
                            stderr=subprocess.STDOUT, cwd=data_dir.parent)


def admin_key(data_dir: Path, plugin_dir: Path) -> str:
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1",
           "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(REPO)])}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    out = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "bench",
                          "--role", "admin"], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["api_key"]


def wait_ready(base: str, verify: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if requests.get(base + "/v1/health", verify=verify, timeout=1).ok:
                return
        except (requests.RequestException, OSError):  # OSError: the certificate is not written yet
            pass
        time.sleep(0.2)
    raise SystemExit("server did not start; see server.log")


def drive(url: str, key: str, verify: str, seconds: float, connections: int) -> list[float]:
    """Latencies (seconds) of every request answered with 200 within the time box."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {key}"
        local = []
        while time.monotonic() < stop:
            started = time.perf_counter()
            response = session.get(url, verify=verify, timeout=30)
            elapsed = time.perf_counter() - started
            if response.status_code != 200:
                errors.append(f"{response.status_code} {response.text[:200]}")
                break
            response.content  # noqa: B018 - read the whole body
            local.append(elapsed)
        with lock:
            latencies.extend(local)

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"{url}: {errors[0]}")
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of one round of one route")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per route")
    parser.add_argument("--connections", type=int, default=4, help="concurrent keep-alive connections")
    parser.add_argument("--screens", type=int, default=50)
    args = parser.parse_args()
    urllib3.disable_warnings()

    with tempfile.TemporaryDirectory(prefix="svc-bench-") as tmp:
        tmp_path = Path(tmp)
        plugin_dir, data_dir = tmp_path / "plugins", tmp_path / "data"
        data_dir.mkdir()
        install_hello(plugin_dir)
        port = free_port()
        server = start_server(data_dir, plugin_dir, port)
        base = f"https://127.0.0.1:{port}"
        verify = str(data_dir / "tls" / "display-cert.pem")
        try:
            wait_ready(base, verify)
            key = admin_key(data_dir, plugin_dir)
            with requests.Session() as session:
                session.headers["Authorization"] = f"Bearer {key}"
                for index in range(args.screens):
                    response = session.post(base + "/v1/screens", verify=verify, json={
                        "id": f"screen-{index:03d}", "screen_type": "message", "name": f"Screen {index}",
                        "description": "benchmark row", "sort_order": index,
                        "config_json": {"title": f"Title {index}", "body": "Lunch is served at noon. " * 4}})
                    response.raise_for_status()
                listed = session.get(base + "/v1/screens", verify=verify).json()["items"]
                assert len(listed) == args.screens
                assert session.get(base + "/v1/hello", verify=verify).ok

            routes = {"hello": base + "/v1/hello", "screens": base + "/v1/screens"}
            for url in routes.values():  # warm-up
                drive(url, key, verify, 1.0, args.connections)
            results: dict[str, dict[str, list[float]]] = {name: {"rps": [], "lat": []} for name in routes}
            for _ in range(args.rounds):
                for name, url in routes.items():
                    latencies = drive(url, key, verify, args.seconds, args.connections)
                    results[name]["rps"].append(len(latencies) / args.seconds)
                    results[name]["lat"].extend(latencies)
        finally:
            server.terminate()
            server.wait(30)

    print(f"rest_throughput: {args.connections} connections, {args.rounds} x {args.seconds:g} s per route, "
          f"HTTPS keep-alive, {args.screens} screens, python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"{'route':<22}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    summary = {}
    for name, label in (("hello", "GET /v1/hello"), ("screens", f"GET /v1/screens ({args.screens})")):
        rps = statistics.median(results[name]["rps"])
        p50 = percentile(results[name]["lat"], 0.50) * 1000
        p99 = percentile(results[name]["lat"], 0.99) * 1000
        summary[name] = rps
        print(f"{label:<22}{rps:>10.1f}{p50:>10.1f}{p99:>10.1f}")
    ratio = summary["screens"] / summary["hello"]
    print(f"ratio screens/hello: {ratio:.2f} (goal >= {GOAL})")
    return 0 if ratio >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
