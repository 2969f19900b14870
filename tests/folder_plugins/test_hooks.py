"""The hooks folder plugins brought, ``serving`` and ``describe_plugins``, each with a throwaway plugin."""
from __future__ import annotations

import json

import pytest

from tests.folder_plugins.sidecars import wait_for
from tests.distributions import run_cli, write_distribution

# When the server accepts connections, ask it for /v1/health from another thread and note the answer.
SERVING = """
import http.client, json, ssl, threading
from pathlib import Path
from hookspecs import hookimpl

@hookimpl
def serving(host):
    settings = host.settings
    def ask():
        if settings.http_tls and settings.http_server != "waitress":
            context = ssl.create_default_context(cafile=str(settings.data_dir / "tls" / "display-cert.pem"))
            connection = http.client.HTTPSConnection("127.0.0.1", settings.http_port, context=context,
                                                     timeout=10)
        else:
            connection = http.client.HTTPConnection("127.0.0.1", settings.http_port, timeout=10)
        connection.request("GET", "/v1/health")
        status = connection.getresponse().status
        (settings.data_dir / "serving.json").write_text(json.dumps({"status": status}))
    threading.Thread(target=ask).start()
"""

DESCRIBE = """
from hookspecs import hookimpl

@hookimpl
def describe_plugins(settings):
    return [{"id": "lamp", "name": "Desk lamp", "kind": "folder", "origin": "folder", "version": "2.0",
             "state": "stopped", "reason": None}]
"""


@pytest.mark.slow
@pytest.mark.parametrize("server_kind", ["uvicorn", "waitress"])
def test_hook_serving(tmp_path, start_server, server_kind):
    site = write_distribution(tmp_path / "site", "warmup", SERVING)
    extra = {"SVC_DISPLAY_HTTP_SERVER": "waitress"} if server_kind == "waitress" else {}
    server = start_server(extra, extra_pythonpath=[site])
    note = server.data_dir / "serving.json"
    answer = wait_for(lambda: note.exists() and json.loads(note.read_text()), timeout=30, what="serving")
    assert answer == {"status": 200}  # the hook ran once the server answered


def test_hook_describe_plugins(tmp_path, env):
    site = write_distribution(tmp_path / "site", "lamps", DESCRIBE)
    out = run_cli(env, site, "plugins", "list", "--json")
    assert out.returncode == 0, out.stderr
    rows = {row["id"]: row for row in json.loads(out.stdout)}
    assert rows["lamp"] == {"id": "lamp", "name": "Desk lamp", "kind": "folder", "origin": "folder",
                            "version": "2.0", "state": "stopped", "reason": None}
    assert rows["lamps"]["kind"] == "entry_point" and rows["lamps"]["state"] == "stopped"
    text = run_cli(env, site, "plugins", "list").stdout
    assert text.splitlines()[0].split() == ["PLUGIN", "VERSION", "ORIGIN", "STATE", "HOOKS", "/", "SIDECAR"]
    assert [line for line in text.splitlines() if line.startswith("lamp ") and "stopped" in line]
