"""Plugin folders for the tests: real manifests and real sidecar programs, written under ``tmp_path``.

Every sidecar is a real process the display starts; the Python ones run with this
interpreter (``sys.executable``), the shell ones with ``sh``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from svc_display.testing import wait_for  # noqa: F401  (the sidecar tests import it from here)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "plugins"
PYTHON = sys.executable

# Serves GET /health and writes its environment and working directory to env.json.
ENV_DUMPER = r'''
import json, os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
target = os.path.join(os.environ["SVC_PLUGIN_DIR"], "env.json")
with open(target + ".tmp", "w") as handle:
    json.dump({**os.environ, "__cwd__": os.getcwd()}, handle)
os.replace(target + ".tmp", target)

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(os.environ["SVC_PLUGIN_PORT"])), Handler).serve_forever()
'''

# Answers its health path, never answers POST /collect.
HANGS_ON_COLLECT = r'''
import os, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
    def do_POST(self):
        time.sleep(3600)
    def log_message(self, *args):
        pass

print("up; /collect will hang", flush=True)
ThreadingHTTPServer(("127.0.0.1", int(os.environ["SVC_PLUGIN_PORT"])), Handler).serve_forever()
'''

# Accepts connections and answers bytes that are not HTTP.
GARBAGE = r'''
import os, socket
server = socket.create_server(("127.0.0.1", int(os.environ["SVC_PLUGIN_PORT"])))
while True:
    connection, _ = server.accept()
    try:
        connection.recv(65536)
        connection.sendall(b"\x00\xffgarbage, not HTTP\r\n\r\n")
    finally:
        connection.close()
'''

# Serves /health (a file) and leaves a grandchild in its process group that ignores SIGTERM.
STUBBORN_GRANDCHILD = (
    "sh -c 'trap \"\" TERM; echo $$ > grandchild.pid; while :; do sleep 1; done' & "
    f"exec {PYTHON} -m http.server --bind 127.0.0.1 \"$SVC_PLUGIN_PORT\""
)


def documented_json(marker: str) -> Any:
    """The JSON block of ``docs/folder-plugins.md`` between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    doc = (REPO / "docs" / "folder-plugins.md").read_text()
    block = re.search(rf"<!-- {marker} -->\n```json\n(.*?)\n```\n<!-- /{marker} -->", doc, re.S)
    assert block, f"docs/folder-plugins.md lost its {marker} block"
    return json.loads(block.group(1))


def write_plugin(plugins_dir: Path, folder: str, manifest: dict[str, Any] | str,
                 files: dict[str, str] | None = None) -> Path:
    target = plugins_dir / folder
    target.mkdir(parents=True, exist_ok=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest, indent=2)
    (target / "manifest.json").write_text(text)
    for name, content in (files or {}).items():
        (target / name).write_text(content)
    return target


def python_sidecar(plugin_id: str, source: str, **extra: Any) -> tuple[dict[str, Any], dict[str, str]]:
    manifest = {"id": plugin_id, "name": plugin_id.title(), "version": "1.0",
                "sidecar": {"command": [PYTHON, "sidecar.py"], **extra}}
    return manifest, {"sidecar.py": source}


def copy_example(plugins_dir: Path, name: str, python: bool = True) -> Path:
    """An example of ``plugins/`` as shipped, run with this interpreter instead of ``python3`` on PATH."""
    target = plugins_dir / name
    shutil.copytree(EXAMPLES / name, target)
    manifest = json.loads((target / "manifest.json").read_text())
    if python and manifest["sidecar"]["command"][0] == "python3":
        manifest["sidecar"]["command"][0] = PYTHON
        (target / "manifest.json").write_text(json.dumps(manifest))
    return target


def rows_by_id(server: Any, key: str) -> dict[str, dict[str, Any]]:
    answer = server.get("/v1/plugins", key=key)
    assert answer.status_code == 200, answer.text
    return {row["id"]: row for row in answer.json()["items"]}


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def kill_if_alive(pids: list[int]) -> None:
    """Clean up after a failed test, so no process outlives it."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# Answers its health path; POST /collect answers 200 with a body that is not JSON.
GARBAGE_COLLECT = r'''
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
    def do_POST(self):
        body = b"\x00\xff<<not json>>"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(os.environ["SVC_PLUGIN_PORT"])), Handler).serve_forever()
'''
