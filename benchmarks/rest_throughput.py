"""REST throughput under concurrent load: three list routes against a bare route, TLS and plain HTTP.

Starts two real ``svc-display serve`` processes on one data dir (SQLite, headless), one over
HTTPS (the default) and one over plain HTTP, with the example ``hello`` plugin installed into a
temporary ``--target`` folder on their ``PYTHONPATH`` (``GET /v1/hello``: the bare route, no
database session, a tiny body). Seeds, before the servers start, 100,000 RSS articles through
one batched ``INSERT`` per 10,000 rows (the catalog benchmark's generator, search-index
triggers included); then 50 screens and 5 ticker tapes through the API. The load comes from
wrk (a second process, C, keep-alive connections, 2 threads) at 4, 16 and 64 connections for:

- ``GET /v1/screens`` (50 rows),
- ``GET /v1/catalog/rss-articles?limit=25`` (100,000 rows),
- ``GET /v1/ticker/items`` (5 tapes),
- ``GET /v1/hello`` (the bare route),

every request authenticated with an admin key, in alternating rounds (round after round, every
connection count, scheme and route in turn) so that load from elsewhere on the machine hits
every side alike. Prints, per connection count and scheme, the median req/s over rounds, the
median p50 and the worst p99 of the rounds, each list/bare ratio, the TLS/plain ratio per route,
any error (non-2xx answer, socket error, timeout), and both servers' RSS after the run.

In the same rounds it measures a stack floor: ``benchmarks/asgi_floor.py``, an ASGI app that
answers a fixed body and does nothing else, under the same uvicorn, uvloop and httptools with
uvicorn's own TLS. Its TLS/plain ratio is what TLS costs per request on this machine when the
request costs nothing (OpenSSL through Python's ``ssl`` on the event loop, and wrk's own TLS on
the same cores); it is printed beside the display's, not judged.

    .venv/bin/python benchmarks/rest_throughput.py            # 3 rounds x 3 s per cell (about 6 min with seeding)
    .venv/bin/python benchmarks/rest_throughput.py --quick    # 1 round x 2 s per cell (about 1 min)
    .venv/bin/python benchmarks/rest_throughput.py --profile screens --articles 20000   # where the time goes

``--profile ROUTE`` (``screens``, ``rss-articles``, ``ticker`` or ``bare``) runs no rounds: it
records the plain-HTTP server with py-spy (``pip install py-spy`` into the venv; it needs
ptrace rights on the server process) while wrk drives that route at ``--profile-connections``
(16) for ``--profile-seconds`` (10), and prints the busiest functions (share of the samples
in which a thread was on CPU or waiting on a lock; py-spy leaves idle waits out) and the
shares of the server's layers (the connection layer, the WSGI bridge, Falcon, the database,
auth, JSON, TLS).

Needs wrk: ``sudo apt-get install -y wrk`` (Debian/Ubuntu), ``brew install wrk`` (macOS).
Exits 1 when a goal is missed: list/bare >= 0.6 at 16 and 64 connections, TLS >= 0.9 of plain,
p99 < 200 ms at 64 connections, no error.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
import urllib3

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from svc_display.testing import ServerProcess  # noqa: E402  (the repo on sys.path first)

LIST_GOAL = 0.6
TLS_GOAL = 0.9
P99_GOAL_MS = 200.0
ROUTES = {
    "screens": "/v1/screens",
    "rss-articles": "/v1/catalog/rss-articles?limit=25",
    "ticker": "/v1/ticker/items",
    "bare": "/v1/hello",
}
FLOOR = "floor"  # benchmarks/asgi_floor.py: not a route of the display, the stack's own TLS cost
LABELS = {"screens": "GET /v1/screens (50)", "rss-articles": "GET /v1/catalog/rss-articles?limit=25 (100k)",
          "ticker": "GET /v1/ticker/items", "bare": "GET /v1/hello (bare)",
          FLOOR: "stack floor (asgi_floor.py)"}


def server_env(data_dir: Path, plugin_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1",
           "SVC_DISPLAY_LOG_LEVEL": "WARNING", "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin_dir), str(REPO), os.environ.get("PYTHONPATH")])),
           **extra}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    return env


def seed_storage(env: dict[str, str], rows: int) -> tuple[str, float]:
    """An admin key, and ``rows`` RSS articles bulk-inserted through the storage layer (not the
    API), before any server runs; returns the key and the seconds the articles took."""
    from pony import orm

    from benchmarks.catalog_query import insert_rows, vocabulary
    from builtin_plugins.clients.keys import issue_client
    from svc_host.config import load_settings
    from svc_host.host import build_host

    host = build_host(load_settings(env), with_routes=False)
    try:
        with orm.db_session:
            key = issue_client(host, "bench", "admin").api_key
        started = time.perf_counter()
        rng = random.Random(7)
        insert_rows(host.db, rows, rng, vocabulary(rng))
        return key, time.perf_counter() - started
    finally:
        host.close()


def start_server(env: dict[str, str], tls: bool) -> ServerProcess:
    """A real ``svc-display serve`` (the test suite's helper: the server binds a port the OS
    chooses and the helper reads it back; waits for ``/v1/health``)."""
    return ServerProcess({**env, "SVC_DISPLAY_HTTP_TLS": "1" if tls else "0"}).start(timeout=90)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate and key for 127.0.0.1 in ``folder``, made like the display's (once)."""
    from svc_host.tls import generate_self_signed

    cert, key = folder / "bench-cert.pem", folder / "bench-key.pem"
    if not cert.exists():
        generate_self_signed(cert, key, "localhost", ["127.0.0.1"])
    return cert, key


class FloorServer:
    """An ASGI ``app`` ("module:attr", by default ``benchmarks/asgi_floor.py``, the stack floor
    of the TLS/plain ratio) under uvicorn (uvloop, httptools), over HTTPS with a certificate
    made like the display's, or plain HTTP; started from ``cwd`` with ``env``."""

    def __init__(self, tmp: Path, tls: bool, app: str = "benchmarks.asgi_floor:app", cwd: Path = REPO,
                 env: dict[str, str] | None = None, port_attempts: int = 3):
        from svc_display.testing import free_port

        for _attempt in range(port_attempts):  # a port taken before uvicorn binds it: exit 3, next port
            port = free_port()
            command = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
                       "--loop", "uvloop", "--http", "httptools", "--log-level", "warning", "--no-access-log"]
            if tls:
                cert, key = self_signed(tmp)
                command += ["--ssl-certfile", str(cert), "--ssl-keyfile", str(key)]
            self.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
            self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if requests.get(self.url + "/", verify=False, timeout=1).ok:
                        return
                except (requests.RequestException, OSError):
                    time.sleep(0.1)
            self.stop()
        raise SystemExit(f"{app} did not start under uvicorn ({self.url})")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(30)


def rss_mib(server: ServerProcess) -> float:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    return float(match.group(1)) * UNITS[match.group(2)]


def wrk(url: str, key: str, connections: int, seconds: float) -> dict:
    """One wrk run: req/s, p50/p99 ms, and the error count (non-2xx/3xx, socket errors)."""
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s", "--latency",
                          "-H", f"Authorization: Bearer {key}", url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    errors = 0
    match = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    if match:
        errors += int(match.group(1))
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if match:
        errors += sum(int(n) for n in match.groups())
    return {"rps": rps, "p50": p50, "p99": p99, "errors": errors}


# Layers of the server, each the frames whose file path holds one of these (a sample counts for
# a layer when any frame of its stack does).
LAYERS = {
    "connection layer (svc_host/http/connection/)": ("svc_host/http/connection/",),
    "WSGI bridge (svc_host/http/bridge.py, a2wsgi)": ("svc_host/http/bridge.py", "a2wsgi/"),
    "uvicorn + event loop": ("uvicorn/", "asyncio/", "uvloop/"),
    "Falcon app (routing, middleware, responders)": ("falcon/app.py",),
    "database (Pony, sqlite3, psycopg2)": ("pony/", "sqlite3/", "psycopg2/"),
    "auth (Host.authenticate)": ("authenticate (svc_host/host.py", "builtin_plugins/clients/keys.py"),
    "JSON encoding": ("json/encoder.py", "dumps_json"),
    "TLS (ssl)": ("ssl.py", "sslproto"),
    "request id": ("uuid.py",),
}


def profile(server: ServerProcess, url: str, key: str, connections: int, seconds: float, output: Path) -> int:
    """py-spy on ``server`` while wrk drives ``url``; prints the busiest functions and the layers."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        raise SystemExit("py-spy is missing: .venv/bin/pip install py-spy")
    recorder = subprocess.Popen([spy, "record", "--pid", str(server.process.pid), "--rate", "200",
                                 "--duration", str(int(seconds)), "--format", "raw", "--threads",
                                 "--nonblocking", "--output", str(output)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1)  # py-spy attached
    result = wrk(url, key, connections, seconds - 1)
    _out, err = recorder.communicate(timeout=seconds + 60)
    if recorder.returncode != 0 or not output.exists():
        raise SystemExit(f"py-spy failed: {err.strip()[-500:]}")
    total = 0
    inclusive: dict[str, int] = {}
    self_time: dict[str, int] = {}
    layers = dict.fromkeys(LAYERS, 0)
    for line in output.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [frame for frame in stack.split(";")[1:] if not frame.startswith("thread ")]
        if not frames:
            continue
        total += count
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
        self_time[frames[-1]] = self_time.get(frames[-1], 0) + count
        joined = ";".join(frames)
        for layer, needles in LAYERS.items():
            if any(needle in joined for needle in needles):
                layers[layer] += count
    print(f"profile: {url} at {connections} connections, {result['rps']:.0f} req/s, "
          f"p50 {result['p50']:.1f} ms, "
          f"p99 {result['p99']:.1f} ms; {total} busy samples (py-spy, 200 Hz, every thread)")
    print("\nlayers (share of busy samples whose stack passes through them; they overlap)")
    for layer, count in sorted(layers.items(), key=lambda item: -item[1]):
        print(f"  {100 * count / max(total, 1):5.1f}%  {layer}")
    print("\nbusiest functions, self time (the frame on top of the stack)")
    for frame, count in sorted(self_time.items(), key=lambda item: -item[1])[:20]:
        print(f"  {100 * count / max(total, 1):5.1f}%  {frame}")
    print("\nbusiest functions, inclusive (on the stack)")
    for frame, count in sorted(inclusive.items(), key=lambda item: -item[1])[:40]:
        print(f"  {100 * count / max(total, 1):5.1f}%  {frame}")
    print(f"\nraw stacks: {output} (removed with the temporary directory; copy it first to keep it)")
    return 0


def seed_api(base: str, key: str, screens: int) -> None:
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {key}"
        session.verify = False
        for index in range(screens):
            session.post(base + "/v1/screens", json={
                "id": f"screen-{index:03d}", "screen_type": "message", "name": f"Screen {index}",
                "description": "benchmark row", "sort_order": index,
                "config_json": {"title": f"Title {index}", "body": "Lunch is served at noon. " * 4}}).raise_for_status()
        for index in range(5):
            session.post(base + "/v1/ticker/tapes", json={
                "id": f"tape-{index}", "ticker_type": "text", "name": f"Tape {index}", "sort_order": index,
                "config_json": {"text": f"Welcome to the lobby, notice {index}"}}).raise_for_status()
        for name, path in ROUTES.items():
            response = session.get(base + path)
            response.raise_for_status()
            if name != "bare":
                assert response.json()["items"], f"{path} answered no items"
        assert len(session.get(base + "/v1/screens").json()["items"]) == screens
        assert session.get(base + ROUTES["rss-articles"]).json()["total"] > 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of one wrk run (one cell of one round)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--connections", default="4,16,64", help="comma-separated connection counts")
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="1 round of 2 s per cell")
    parser.add_argument("--profile", choices=sorted(ROUTES), help="profile the server on this route instead")
    parser.add_argument("--profile-connections", type=int, default=16)
    parser.add_argument("--profile-seconds", type=float, default=10.0)
    parser.add_argument("--profile-scheme", choices=("http", "https"), default="http")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds = 2.0, 1
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: sudo apt-get install -y wrk (Debian/Ubuntu) or brew install wrk (macOS)")
    urllib3.disable_warnings()
    connection_counts = [int(n) for n in args.connections.split(",")]

    with tempfile.TemporaryDirectory(prefix="svc-bench-") as tmp:
        tmp_path = Path(tmp)
        plugin_dir, data_dir = tmp_path / "plugins", tmp_path / "data"
        data_dir.mkdir()
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(plugin_dir),
                        str(REPO / "examples" / "hello-plugin")], check=True)
        env = server_env(data_dir, plugin_dir)
        key, seeded = seed_storage(env, args.articles)
        print(f"seeded {args.articles} RSS articles in {seeded:.1f} s", file=sys.stderr)
        servers: dict[str, ServerProcess] = {}
        floors: dict[str, FloorServer] = {}
        results: dict[tuple, list[dict]] = {}
        try:
            for scheme in ("https", "http"):
                servers[scheme] = start_server(env, tls=scheme == "https")
                floors[scheme] = FloorServer(tmp_path, tls=scheme == "https")
            seed_api(servers["http"].url, key, 50)
            for server in servers.values():  # warm-up: imports, caches, TLS session setup
                for path in ROUTES.values():
                    wrk(server.url + path, key, 4, 1)
            if args.profile:
                server = servers[args.profile_scheme]
                return profile(server, server.url + ROUTES[args.profile], key, args.profile_connections,
                               args.profile_seconds, tmp_path / "profile.txt")
            for round_index in range(args.rounds):
                for connections in connection_counts:
                    for scheme, server in servers.items():
                        for name, path in ROUTES.items():
                            result = wrk(server.url + path, key, connections, args.seconds)
                            results.setdefault((connections, scheme, name), []).append(result)
                        result = wrk(floors[scheme].url + "/", key, connections, args.seconds)
                        results.setdefault((connections, scheme, FLOOR), []).append(result)
                print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
            rss = {scheme: rss_mib(server) for scheme, server in servers.items()}
        finally:
            for server in [*servers.values(), *floors.values()]:
                server.stop()

    print(f"rest_throughput: wrk -t2, {args.rounds} alternating round(s) x {args.seconds:g} s per cell, "
          f"keep-alive, admin key, SQLite, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    failures = []
    summary: dict[tuple, dict] = {}
    for (connections, scheme, name), runs in results.items():
        summary[(connections, scheme, name)] = {
            "rps": statistics.median(r["rps"] for r in runs), "p50": statistics.median(r["p50"] for r in runs),
            "p99": max(r["p99"] for r in runs), "errors": sum(r["errors"] for r in runs)}
    width = max(len(label) for label in LABELS.values()) + 2
    for connections in connection_counts:
        for scheme in servers:
            bare = summary[(connections, scheme, "bare")]["rps"]
            print(f"\n{connections} connections, {scheme}")
            print(f"{'route':<{width}}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'/bare':>7}{'errors':>8}")
            for name in ROUTES:
                row = summary[(connections, scheme, name)]
                ratio = row["rps"] / bare
                print(f"{LABELS[name]:<{width}}{row['rps']:>9.1f}{row['p50']:>9.1f}{row['p99']:>9.1f}"
                      f"{ratio:>7.2f}{row['errors']:>8}")
                if name != "bare" and connections >= 16 and ratio < LIST_GOAL:
                    failures.append(f"{name} at {connections} {scheme}: list/bare {ratio:.2f} < {LIST_GOAL}")
                if connections >= 64 and row["p99"] >= P99_GOAL_MS:
                    failures.append(f"{name} at {connections} {scheme}: p99 {row['p99']:.0f} ms >= {P99_GOAL_MS:g}")
                if row["errors"]:
                    failures.append(f"{name} at {connections} {scheme}: {row['errors']} errors")
    print("\nTLS / plain HTTP (req/s)")
    print(f"{'route':<{width}}" + "".join(f"{f'{c} conn':>9}" for c in connection_counts))
    for name in ROUTES:
        ratios = [summary[(c, "https", name)]["rps"] / summary[(c, "http", name)]["rps"] for c in connection_counts]
        print(f"{LABELS[name]:<{width}}" + "".join(f"{r:>9.2f}" for r in ratios))
        failures += [f"{name} at {c}: TLS/plain {r:.2f} < {TLS_GOAL}" for c, r in zip(connection_counts, ratios)
                     if r < TLS_GOAL]
    # the same uvicorn/uvloop/httptools answering a fixed body and nothing else: what TLS costs
    # per request on this machine when the request itself costs nothing (not a goal)
    floor = [summary[(c, "https", FLOOR)]["rps"] / summary[(c, "http", FLOOR)]["rps"] for c in connection_counts]
    print(f"{LABELS[FLOOR]:<{width}}" + "".join(f"{r:>9.2f}" for r in floor))
    print(f"{'  its req/s, https / http':<{width}}" + "".join(
        f"{summary[(c, 'https', FLOOR)]['rps']:>9.0f}" for c in connection_counts) + "  /"
          + "".join(f"{summary[(c, 'http', FLOOR)]['rps']:>7.0f}" for c in connection_counts))
    print(f"\nserver RSS after the run: https {rss['https']:.0f} MiB, http {rss['http']:.0f} MiB")
    print(f"goals (list/bare >= {LIST_GOAL} at 16 and 64, TLS/plain >= {TLS_GOAL}, p99 < {P99_GOAL_MS:g} ms at 64, "
          f"no error): " + ("met" if not failures else "MISSED"))
    for failure in failures:
        print(f"  - {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
