"""What TLS costs per request on this machine, by server stack, for an app shaped like the
display's REST routes: TLS/plain HTTP of one synthetic ASGI app under uvicorn (uvloop,
httptools; TLS through Python's ``ssl`` on the event loop, as the display serves), under
granian (TLS in Rust, off the GIL), and behind haproxy (a TLS terminator in C, in TCP mode, in
front of the plain uvicorn server), measured in alternating rounds with wrk.

The app (written to a temporary folder) answers every request from a pool of 16 threads
(the display's WSGI workers) that runs two indexed SQLite reads (the key lookup and the list
cache's version) and a little Python, and returns a body of ``--body`` bytes (17,000: the
size of ``GET /v1/screens`` with 50 rows). It is not the display: it is the question "is the
TLS/plain figure of ``rest_throughput.py`` at 4 connections the stack's or ours?".

    .venv/bin/python benchmarks/tls_stack.py                      # uvicorn only
    .venv/bin/pip install granian && .venv/bin/python benchmarks/tls_stack.py --granian
    sudo apt-get install -y haproxy && .venv/bin/python benchmarks/tls_stack.py --haproxy

Prints req/s over TLS and plain HTTP, their ratio, and TLS's cost per request
(1/https - 1/http, in microseconds) for each stack.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
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

from benchmarks.rest_throughput import FloorServer, self_signed, wrk  # noqa: E402
from svc_display.testing import free_port  # noqa: E402

APP = '''
import asyncio, os, sqlite3, threading
from concurrent.futures import ThreadPoolExecutor

BODY = b"x" * int(os.environ["TLS_STACK_BODY"])
POOL = ThreadPoolExecutor(16)
local = threading.local()


def work():
    connection = getattr(local, "connection", None)
    if connection is None:
        connection = local.connection = sqlite3.connect(os.environ["TLS_STACK_DB"], isolation_level=None,
                                                        check_same_thread=False)
    for _ in range(2):
        connection.execute("SELECT v FROM t WHERE k = ?", ("a",)).fetchone()
    total = 0
    for i in range(3000):
        total += i
    return BODY


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = await asyncio.get_running_loop().run_in_executor(POOL, work)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
'''


def answering(process: subprocess.Popen, url: str, name: str) -> tuple[subprocess.Popen, str]:
    """``process`` and ``url`` once ``url`` answers (30 s at most)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(url, verify=False, timeout=1).ok:
                return process, url
        except (requests.RequestException, OSError):
            time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"{name} did not start ({url})")


def start_granian(tls: bool, folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = [shutil.which("granian") or str(Path(sys.executable).with_name("granian")), "--interface", "asgi",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "tls_stack_app:app"]
    if tls:  # granian reads PKCS#8 keys only
        cert, key = self_signed(folder)
        subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-in", str(key), "-out", str(folder / "key8.pem")],
                       check=True)
        command += ["--ssl-certificate", str(cert), "--ssl-keyfile", str(folder / "key8.pem")]
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return answering(process, f"{'https' if tls else 'http'}://127.0.0.1:{port}/", "granian")


def start_haproxy(folder: Path, plain_url: str) -> tuple[subprocess.Popen, str]:
    """haproxy terminating TLS (one thread, TCP mode) in front of the plain uvicorn server."""
    cert, key = self_signed(folder)
    (folder / "haproxy.pem").write_bytes(cert.read_bytes() + key.read_bytes())
    port = free_port()
    (folder / "haproxy.cfg").write_text(f"""global
    nbthread 1
defaults
    mode tcp
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend tls
    bind 127.0.0.1:{port} ssl crt {folder / 'haproxy.pem'}
    default_backend app
backend app
    server app {plain_url.split('//')[1].rstrip('/')}
""")
    process = subprocess.Popen(["haproxy", "-f", str(folder / "haproxy.cfg")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    return answering(process, f"https://127.0.0.1:{port}/", "haproxy")


def start(stack: str, tls: bool, folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    env = {**env, "PYTHONPATH": str(folder)}
    if stack == "granian":
        return start_granian(tls, folder, env)
    server = FloorServer(folder, tls, app="tls_stack_app:app", cwd=folder, env=env)
    return server.process, server.url + "/"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", default="4,16", help="comma-separated connection counts")
    parser.add_argument("--body", type=int, default=17_000, help="response body bytes")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--granian", action="store_true", help="measure granian too (pip install granian)")
    parser.add_argument("--haproxy", action="store_true",
                        help="measure haproxy terminating TLS in front of the plain uvicorn server too")
    args = parser.parse_args()
    urllib3.disable_warnings()
    stacks = ["uvicorn"] + (["granian"] if args.granian else []) + (["haproxy"] if args.haproxy else [])
    if args.granian and not (shutil.which("granian") or Path(sys.executable).with_name("granian").exists()):
        raise SystemExit("granian is missing: .venv/bin/pip install granian")
    if args.haproxy and not shutil.which("haproxy"):
        raise SystemExit("haproxy is missing: sudo apt-get install -y haproxy")
    with tempfile.TemporaryDirectory(prefix="svc-tls-stack-") as tmp:
        folder = Path(tmp)
        (folder / "tls_stack_app.py").write_text(APP)
        with sqlite3.connect(folder / "db.sqlite") as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)")
            db.execute("INSERT INTO t VALUES ('a', 'b')")
        env = {**os.environ, "TLS_STACK_BODY": str(args.body), "TLS_STACK_DB": str(folder / "db.sqlite")}
        servers = {(stack, tls): start(stack, tls, folder, env) for stack in stacks if stack != "haproxy"
                   for tls in (True, False)}
        if args.haproxy:  # its plain side is uvicorn's plain server, measured once more in its turn
            servers[("haproxy", True)] = start_haproxy(folder, servers[("uvicorn", False)][1])
            servers[("haproxy", False)] = servers[("uvicorn", False)]
        try:
            results: dict[tuple, list[float]] = {}
            for _ in range(args.rounds):
                for connections in map(int, args.connections.split(",")):
                    for (stack, tls), (_process, url) in servers.items():
                        results.setdefault((stack, connections, tls), []).append(
                            wrk(url, "none", connections, args.seconds)["rps"])
        finally:
            for process, _url in set(servers.values()):
                process.terminate()
                process.wait(30)
    print(f"tls_stack: wrk -t2, {args.rounds} alternating rounds x {args.seconds:g} s, body {args.body} B, "
          f"16 threads x 2 SQLite reads per request, {os.cpu_count()} CPUs")
    print(f"{'stack':<10}{'conn':>6}{'https':>9}{'http':>9}{'TLS/plain':>11}{'TLS us/req':>12}")
    for stack in stacks:
        for connections in map(int, args.connections.split(",")):
            https = statistics.median(results[(stack, connections, True)])
            http = statistics.median(results[(stack, connections, False)])
            print(f"{stack:<10}{connections:>6}{https:>9.0f}{http:>9.0f}{https / http:>11.2f}"
                  f"{1e6 * (1 / https - 1 / http):>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
