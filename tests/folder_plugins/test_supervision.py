"""A plugins dir full of good and bad plugins, served by a real display process (issue 13).

The display starts and serves whatever the plugins do; the good plugin runs; each bad one
is listed with its reason in ``GET /v1/plugins`` and ``svc-display plugins list``; a
crashing sidecar is restarted with a doubling backoff; shutdown leaves no sidecar process
(nor a grandchild that ignores SIGTERM) behind.
"""
from __future__ import annotations

import json
import re
import stat
import sys
import time

import pytest

from builtin_plugins.folder_plugins.routes import PluginList
from builtin_plugins.folder_plugins.supervisor import LINE_MAX, OUTPUT_BYTES_PER_MINUTE
from svc_host.live_state import STATE_FILE
from tests.folder_plugins.sidecars import (
    GARBAGE,
    HANGS_ON_COLLECT,
    STUBBORN_GRANDCHILD,
    alive,
    copy_example,
    kill_if_alive,
    python_sidecar,
    rows_by_id,
    wait_for,
    write_plugin,
)

pytestmark = pytest.mark.slow


def sidecar(plugin_id, command, **extra):
    return {"id": plugin_id, "name": plugin_id, "version": "0.1", "sidecar": {"command": command, **extra}}


@pytest.fixture
def plugins_dir(tmp_path):
    root = tmp_path / "plugins"
    copy_example(root, "python-trivia")
    copy_example(root, "perl-jokes")
    write_plugin(root, "bad-manifest", {"id": "bad-manifest", "name": "x", "version": "1", "colour": "red"})
    write_plugin(root, "not-json", "{ this is not json")
    write_plugin(root, "twin-a", {"id": "twin", "name": "first", "version": "1"})
    write_plugin(root, "twin-b", {"id": "twin", "name": "second", "version": "1"})
    write_plugin(root, "entry-point-name", {"id": "curator", "name": "x", "version": "1"})
    write_plugin(root, "crasher", sidecar("crasher", ["sh", "-c", "echo crashing now; exit 3"]))
    write_plugin(root, "silent", sidecar("silent", ["sleep", "600"]))
    write_plugin(root, "hangs", *python_sidecar("hangs", HANGS_ON_COLLECT))
    write_plugin(root, "garbage", *python_sidecar("garbage", GARBAGE))
    write_plugin(root, "missing", sidecar("missing", ["./no-such-program"]))
    write_plugin(root, "stubborn", sidecar("stubborn", ["sh", "-c", STUBBORN_GRANDCHILD]), {"health": "ok\n"})
    write_plugin(root, "switched-off", sidecar("switched-off", ["sleep", "600"]))
    (root / "notes.txt").write_text("not a plugin\n")
    (root / "empty-folder").mkdir()
    return root


def test_the_display_serves_whatever_the_plugins_do(plugins_dir, start_server):
    server = start_server({"SVC_DISPLAY_PLUGINS_DIR": str(plugins_dir),
                           "SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS": "2",
                           "SVC_DISPLAY_DISABLE_PLUGINS": "switched-off"})
    key = server.key("operator")
    pids: list[int] = []
    try:
        _check_states(server, key, plugins_dir, pids)
        _check_cli_reads_the_server_state(server, key)
    finally:
        grandchild = plugins_dir / "stubborn" / "grandchild.pid"
        if grandchild.exists():
            pids.append(int(grandchild.read_text()))
        status = server.stop(timeout=60)
        leftover = [pid for pid in pids if alive(pid)]
        kill_if_alive(leftover)
    assert status == 0
    assert pids and not leftover, f"sidecar processes outlived the display: {leftover}"
    assert "stubborn: sidecar still running 10 s after SIGTERM: SIGKILL" in server.log
    assert not (server.data_dir / STATE_FILE).exists()  # a stopped server shows no live state

    # without a server, the CLI lists what a start would load
    out = server.cli("plugins", "list", "--json")
    assert out.returncode == 0, out.stderr
    rows = {row["id"]: row for row in json.loads(out.stdout)}
    assert rows["python-trivia"]["state"] == rows["crasher"]["state"] == "stopped"
    assert rows["clients"]["state"] == "stopped" and rows["clients"]["kind"] == "entry_point"
    assert rows["bad-manifest"]["state"] == "failed" and "colour" in rows["bad-manifest"]["reason"]
    assert rows["switched-off"]["state"] == "disabled"
    assert "no server runs" in out.stderr


def _check_states(server, key, plugins_dir, pids):
    def settled():
        rows = rows_by_id(server, key)
        pids.extend(row["sidecar"]["pid"] for row in rows.values()
                    if row.get("sidecar") and row["sidecar"]["pid"] and row["sidecar"]["pid"] not in pids)
        done = (rows["python-trivia"]["state"] == rows["perl-jokes"]["state"] == "running"
                and rows["crasher"]["sidecar"]["restart_count"] >= 3
                and rows["silent"]["sidecar"]["restart_count"] >= 1
                and rows["garbage"]["sidecar"]["restart_count"] >= 1
                and rows["stubborn"]["state"] == rows["hangs"]["state"] == "running"
                and (plugins_dir / "stubborn" / "grandchild.pid").exists())
        return rows if done else None

    rows = wait_for(settled, timeout=90, interval=0.1, what="the plugins to settle")
    assert server.get("/v1/health").json()["status"] == "ok"
    assert PluginList().validate(server.get("/v1/plugins", key=key).json()) == {}

    trivia = rows["python-trivia"]
    assert trivia["kind"] == "folder" and trivia["reason"] is None and trivia["version"] == "1.0.0"
    assert trivia["sidecar"]["port"] and trivia["sidecar"]["restart_count"] == 0
    assert alive(trivia["sidecar"]["pid"])
    # the Python example announces itself with its own key: a signal and its marquee text
    signal_path = "/v1/runtime/signals/python-trivia.count"
    count = wait_for(lambda: server.get(signal_path, key=key).json().get("value"), what="the signal")
    assert count == 4
    values = {kv["key"]: kv["value"] for kv in server.get("/v1/config/key-values", key=key).json()["items"]}
    questions = json.loads((plugins_dir / "python-trivia" / "trivia.json").read_text())
    assert values["ticker.marquee.python-trivia"] in [f"Trivia: {q['question']}" for q in questions]

    # each bad one is listed with its reason
    assert rows["bad-manifest"]["state"] == "failed"
    assert "'colour' was unexpected" in rows["bad-manifest"]["reason"]
    assert rows["not-json"]["state"] == "failed" and "not JSON" in rows["not-json"]["reason"]
    twins = {r["name"]: r for r in rows_by_id_list(server, key) if r["id"] == "twin"}
    assert twins["first"]["state"] == "running" and twins["first"]["folder"].endswith("twin-a")
    assert twins["twin-b"]["state"] == "failed"  # the folder's name: its manifest is not taken
    assert "duplicate id 'twin': the folder 'twin-a' has it already" in twins["twin-b"]["reason"]
    curator = [r for r in rows_by_id_list(server, key) if r["id"] == "curator"]
    assert {r["kind"] for r in curator} == {"entry_point", "folder"}
    assert "entry-point plugin" in [r for r in curator if r["kind"] == "folder"][0]["reason"]
    assert rows["missing"]["state"] == "failed"
    assert "cannot start './no-such-program'" in rows["missing"]["reason"]
    assert rows["switched-off"]["state"] == "disabled" and rows["switched-off"]["sidecar"] is None

    # a crashing sidecar: restarted after 1 s, 2 s, 4 s ...
    crasher = rows["crasher"]
    assert crasher["state"] in ("restarting", "starting")
    waits = re.findall(r"plugin crasher: sidecar exited with status 3; starting it again in (\S+) s",
                       server.log)
    assert waits[:3] == ["1", "2", "4"]
    assert crasher["sidecar"]["backoff_seconds"] in (1, 2, 4, 8, 16)
    assert _last_reason(server, key, "crasher") == "exited with status 3"
    # one that never answers its health path, one that answers garbage
    assert "no answer to GET /health within 2 s" in _last_reason(server, key, "silent")
    assert "not an HTTP answer" in _last_reason(server, key, "garbage")
    # one that hangs on /collect still answers its health path: it runs
    assert rows["hangs"]["state"] == "running"

    log = server.log
    assert "plugin crasher: crashing now" in log  # the sidecar's output, with its name
    assert "plugin hangs: up; /collect will hang" in log
    for name in ("bad-manifest", "not-json"):
        assert len([line for line in log.splitlines() if f"skipping folder plugin '{name}'" in line]) == 1
    assert "skipping 'notes.txt'" in log and "skipping 'empty-folder'" in log

    state_file = server.data_dir / STATE_FILE
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600


def rows_by_id_list(server, key):
    return server.get("/v1/plugins", key=key).json()["items"]


def _last_reason(server, key, plugin_id):
    """The reason of the plugin's last restart, once it is restarting (it flips back to starting)."""
    def restarting():
        row = rows_by_id(server, key)[plugin_id]
        return row["reason"] if row["state"] == "restarting" else None

    return wait_for(restarting, timeout=30, interval=0.05, what=f"{plugin_id} to restart")


def _check_cli_reads_the_server_state(server, key):
    out = server.cli("plugins", "list", "--json")
    assert out.returncode == 0, out.stderr
    assert "the server running on" in out.stderr
    listed = {row["id"]: row for row in json.loads(out.stdout) if row["kind"] == "folder"}
    assert listed["python-trivia"]["state"] == "running"
    served = rows_by_id(server, key)["python-trivia"]
    assert listed["python-trivia"]["sidecar"]["pid"] == served["sidecar"]["pid"]
    text = server.cli("plugins", "list").stdout
    line = [line for line in text.splitlines() if line.startswith("python-trivia ")][0]
    assert "running" in line and "restarts 0" in line and "pid" in line


def test_plugins_need_integrations_read(tmp_path, start_server):
    server = start_server({"SVC_DISPLAY_PLUGINS_DIR": str(tmp_path / "none")})
    assert server.get("/v1/plugins", key=server.key("viewer")).status_code == 403
    assert server.get("/v1/plugins").status_code == 401
    answer = server.get("/v1/plugins", key=server.key("admin"))
    assert answer.status_code == 200
    assert all(row["kind"] == "entry_point" for row in answer.json()["items"])  # the folder does not exist
    assert "cannot be read" in server.log


def test_a_folder_with_a_template_outside_it_or_an_invalid_template_is_refused(tmp_path, start_server):
    root = tmp_path / "plugins"
    write_plugin(root, "escape", {"id": "escape", "name": "x", "version": "1",
                                  "templates": {"card": "../secret.txt"}})
    (tmp_path / "secret.txt").write_text("x")
    write_plugin(root, "invalid", {"id": "invalid", "name": "x", "version": "1", "templates": {"card": "card.json"}},
                 {"card.json": json.dumps({"blocks": [{"type": "pie"}]})})
    write_plugin(root, "shows", {"id": "shows", "name": "x", "version": "1",
                                 "templates": {"card": "card.json"}},
                 {"card.json": json.dumps({"blocks": [{"type": "title", "text": "{title}"}]})})
    server = start_server({"SVC_DISPLAY_PLUGINS_DIR": str(root)})
    rows = rows_by_id(server, server.key("admin"))
    assert rows["escape"]["state"] == "failed" and "outside the plugin's folder" in rows["escape"]["reason"]
    reason = "template 'card' (card.json) /blocks/0/type: 'pie' is not one of"
    assert rows["invalid"]["state"] == "failed" and rows["invalid"]["reason"].startswith(reason)
    lines = [line for line in server.log.splitlines() if "skipping folder plugin 'invalid'" in line]
    assert len(lines) == 1 and f"({root / 'invalid'}): {reason}" in lines[0], lines
    assert rows["shows"]["state"] == "running" and rows["shows"]["templates"] == {"card": "card.json"}
    assert rows["shows"]["sidecar"] is None


@pytest.mark.parametrize(("text", "repeat", "count"), [("spam", 1, 200_000), ("x", 9000, 300)], ids=["short", "long"])
def test_a_sidecar_printing_as_fast_as_it_can_gets_a_log_bounded_in_bytes_and_a_count_of_the_rest(
        tmp_path, start_server, text, repeat, count):
    """A flood at once, of short lines or of lines longer than LINE_MAX (logged in pieces): at
    most a minute's budget of bytes, and the budget's share of the time it took, reaches the
    display's log; every other byte is counted in a "dropped N bytes" line (docs/folder-plugins.md).
    Before, the bound was in lines, and 9000-byte lines made 10 MB of log a minute."""
    root = tmp_path / "plugins"
    line = text * repeat
    total = (len(line) + 1) * count
    write_plugin(root, "chatty", sidecar("chatty", [sys.executable, "-c", (
        f"import sys, time; sys.stdout.write(({text!r} * {repeat} + '\\n') * {count}); sys.stdout.flush(); "
        "time.sleep(600)")]))
    began = time.monotonic()
    server = start_server({"SVC_DISPLAY_PLUGINS_DIR": str(root), "SVC_DISPLAY_PLUGIN_START_TIMEOUT_SECONDS": "600"})
    budget = OUTPUT_BYTES_PER_MINUTE
    pattern = re.compile(rf"plugin chatty: dropped (\d+) bytes of sidecar output \(more than {budget} bytes a minute\)")
    last_piece = len(line) % LINE_MAX or LINE_MAX

    def accounted() -> int | None:
        log = server.log
        pieces = re.findall(r"plugin chatty: (x+|spam)$", log, flags=re.M)
        logged = sum(len(piece) + (len(piece) == last_piece) for piece in pieces)
        return logged if logged + sum(int(n) for n in pattern.findall(log)) == total else None

    logged = wait_for(accounted, timeout=120, what="every byte logged or counted")
    took = time.monotonic() - began
    log_bytes = sum(len(row) + 1 for row in re.findall(r"^.* plugin chatty: (?:x+|spam)$", server.log, flags=re.M))
    assert 0 < logged < log_bytes <= budget + budget / 60 * took, (logged, log_bytes, took)
    assert logged < total / 10
