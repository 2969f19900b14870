"""The CLI and the README's `make run`."""
import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from svc_host.tls import first_non_loopback_ipv4, local_ipv4_addresses
from tests.conftest import REPO, free_port


def test_migrate_prints_the_schema_version(env, backend):
    out = subprocess.run([sys.executable, "-m", "svc_host", "migrate"], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=60)
    assert out.returncode == 0, out.stderr
    version = json.loads(out.stdout)["schema_version"]
    assert isinstance(version, int)
    if backend == "postgres":
        assert version == 1


def test_first_non_loopback_ipv4_is_a_local_address():
    address = first_non_loopback_ipv4()
    if address is None:  # a machine with loopback only
        assert all(ipaddress.ip_address(a).is_loopback for a in local_ipv4_addresses())
    else:
        assert not ipaddress.ip_address(address).is_loopback and address in local_ipv4_addresses()


def test_make_run_serves_health_over_https(tmp_path):
    port = free_port()
    data = tmp_path / "data"
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(data), "SVC_DISPLAY_HTTP_PORT": str(port),
           "SVC_DISPLAY_HEADLESS": "1", "MAKEFLAGS": ""}
    log = open(tmp_path / "make-run.log", "wb")
    process = subprocess.Popen(["make", "-s", "run"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        health = None
        while time.monotonic() < deadline and health is None:
            try:
                health = requests.get(f"https://127.0.0.1:{port}/v1/health", timeout=2,
                                      verify=str(data / "tls" / "display-cert.pem"),
                                      headers={"Connection": "close"})
            except (requests.ConnectionError, requests.Timeout, OSError):
                time.sleep(0.2)
        assert health is not None and health.status_code == 200, (tmp_path / "make-run.log").read_text()
        assert health.json()["status"] == "ok"
        assert (data / "svc_display.sqlite3").exists()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
