"""The sidecar protocol through the real ``plugin_http`` collector, sidecars run by a real display.

Each sidecar gets its own integration ``plugin_http.<id>`` pointed at it with no ``baseUrl``
editing: the examples' items reach the catalog on their own; a sidecar that hangs on
``/collect`` or answers garbage costs only its own runs (a clear ``last_error``) while the
display keeps answering; one without ``/collect`` has nothing to collect.
"""
from __future__ import annotations

import json
import time

import pytest

from tests.folder_plugins.sidecars import (
    ENV_DUMPER,
    GARBAGE_COLLECT,
    HANGS_ON_COLLECT,
    copy_example,
    python_sidecar,
    rows_by_id,
    wait_for,
    write_plugin,
)

pytestmark = pytest.mark.slow

SIDECARS = ("python-trivia", "perl-jokes", "hangs", "garbage-collect", "signals-only", "exits")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from svc_display.testing import ServerProcess

    root = tmp_path_factory.mktemp("collect")
    plugins = root / "plugins"
    copy_example(plugins, "python-trivia")
    copy_example(plugins, "perl-jokes")
    write_plugin(plugins, "hangs", *python_sidecar("hangs", HANGS_ON_COLLECT))
    write_plugin(plugins, "garbage-collect", *python_sidecar("garbage-collect", GARBAGE_COLLECT))
    write_plugin(plugins, "signals-only", *python_sidecar("signals-only", ENV_DUMPER))
    write_plugin(plugins, "exits", {"id": "exits", "name": "Exits", "version": "1",
                                    "sidecar": {"command": ["sh", "-c", "exit 1"]}})
    write_plugin(plugins, "no-sidecar", {"id": "no-sidecar", "name": "Templates only", "version": "1"})
    process = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(root / "data"), "SVC_DISPLAY_HEADLESS": "1",
                             "SVC_DISPLAY_PLUGINS_DIR": str(plugins)}).start()
    process.admin = process.key("admin")
    yield process
    process.stop()


def integration(server, plugin_id):
    answer = server.get(f"/v1/integrations/plugin_http.{plugin_id}", key=server.admin)
    assert answer.status_code == 200, answer.text
    return answer.json()


def settled(server, plugin_id):
    """The row once its first run (started when the sidecar answered its health path) ended."""
    def ran():
        row = integration(server, plugin_id)
        return row if row["last_run_at_ms"] else None

    return wait_for(ran, timeout=90, interval=0.3, what=f"the first run of plugin_http.{plugin_id}")


def test_each_sidecar_has_its_own_integration(server):
    listed = server.get("/v1/integrations", key=server.admin,
                        params={"integration_type": "plugin_http"}).json()
    ids = {row["id"] for row in listed["items"]}
    assert {f"plugin_http.{name}" for name in SIDECARS} <= ids
    assert "plugin_http.no-sidecar" not in ids
    assert "plugin_http" in ids  # the generic row stays, for manual use
    row = integration(server, "python-trivia")
    assert row["enabled"] is True and row["config_json"] == {"pluginId": "python-trivia"}  # no baseUrl
    assert row["integration_type"] == "plugin_http"
    # an operator changes it like any integration ('-' and '.' in the id)
    patched = server.request("PATCH", "/v1/integrations/plugin_http.perl-jokes", key=server.admin,
                             json={"poll_seconds": 3600})
    assert patched.status_code == 200 and patched.json()["poll_seconds"] == 3600


def test_the_examples_items_reach_the_catalog_on_their_own(server):
    assert settled(server, "python-trivia")["last_error"] is None
    trivia = server.get("/v1/catalog/trivia", key=server.admin, params={"limit": 100}).json()["items"]
    unix = [item for item in trivia if item["id"] == "plugin_http:python-trivia:unix"]
    assert len(unix) == 1 and unix[0]["option_c"] == "Bell Labs" and unix[0]["correct_option"] == "C"

    assert settled(server, "perl-jokes")["last_error"] is None
    jokes = server.get("/v1/catalog/jokes", key=server.admin, params={"limit": 100}).json()["items"]
    assert "plugin_http:perl-jokes:udp" in {item["id"] for item in jokes}
    key_values = server.get("/v1/config/key-values", key=server.admin).json()["items"]
    assert {kv["key"]: kv["value"] for kv in key_values}["ticker.marquee.perl-jokes"] == \
        "4 jokes, told by a Perl sidecar"


def test_a_sidecar_that_answers_garbage_fails_its_own_runs(server):
    row = settled(server, "garbage-collect")
    assert row["consecutive_failures"] >= 1 and "malformed JSON" in row["last_error"]
    lines = server.get("/v1/telemetry/integrations", key=server.admin).json()["items"]
    assert [line for line in lines
            if line.get("integration_type") == "plugin_http" and line["channel"] == "error"]


def test_a_sidecar_without_collect_has_nothing_to_collect(server):
    row = settled(server, "signals-only")
    assert row["last_error"] is None and row["consecutive_failures"] == 0


def test_a_sidecar_that_is_not_running_is_named_in_the_error(server):
    wait_for(lambda: rows_by_id(server, server.admin)["exits"]["sidecar"]["restart_count"] >= 1,
             what="a restart")

    def run_once():
        answer = server.request("POST", "/v1/integrations/plugin_http.exits/run", key=server.admin).json()
        return answer if answer["status"] != "busy" else None

    run = wait_for(run_once, what="a run")
    assert run["status"] == "failed"
    assert "the sidecar of folder plugin 'exits' is " in run["message"]
    assert "exited with status 1" in run["message"] or "starting" in run["message"]


def test_a_sidecar_that_hangs_on_collect_fails_its_run_and_the_display_keeps_answering(server):
    health = []
    deadline = time.monotonic() + 120
    while not integration(server, "hangs")["last_run_at_ms"] and time.monotonic() < deadline:
        started = time.monotonic()
        health.append((server.get("/v1/health").status_code, time.monotonic() - started))
        time.sleep(0.5)
    row = integration(server, "hangs")
    assert row["last_error"] and "timed out" in row["last_error"], row
    assert len(health) > 3 and all(status == 200 for status, _ in health)
    assert max((seconds for _, seconds in health), default=0) < 10  # a stall detector, not a speed claim
    assert rows_by_id(server, server.admin)["hangs"]["state"] == "running"
    assert json.dumps(row)  # the row serialises (no secret, no bytes)


def test_a_row_whose_plugin_is_gone_says_so(make_host):
    """A plugin_http.<id> row outlives its folder (removed since): its runs name the cause."""
    from hookspecs.services import INTEGRATIONS

    host = make_host()
    engine = host.services[INTEGRATIONS]
    assert engine.ensure_row("plugin_http.gone", "plugin_http", {"pluginId": "gone"}) is True
    assert engine.ensure_row("plugin_http.gone", "plugin_http", {"pluginId": "other"}) is False  # kept as is
    result = engine.run_now("plugin_http.gone")
    assert result.status == "failed"
    assert result.message == "no folder plugin 'gone' is installed and config_json has no baseUrl"
