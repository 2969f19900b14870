"""A sidecar's own key, over real HTTPS as the sidecar sees it (CONTRACT "Folder plugins").

The key (``SVC_DISPLAY_API_KEY``) sets signals, raises alerts and writes its own marquee
key-value, and gets 403 on every other route of the route table; it is replaced at every
start of the sidecar and stored nowhere in the clear.
"""
from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import pytest
import requests

from tests.folder_plugins.sidecars import (
    ENV_DUMPER,
    alive,
    python_sidecar,
    rows_by_id,
    wait_for,
    write_plugin,
)

pytestmark = pytest.mark.slow

PLUGIN_PERMISSIONS = {"runtime.signals_write", "alerts.write", "telemetry.read"}


def sidecar_env(folder: Path, not_key: str | None = None) -> dict:
    def written():
        path = folder / "env.json"
        if not path.exists():
            return None
        env = json.loads(path.read_text())
        return env if env["SVC_DISPLAY_API_KEY"] != not_key else None

    return wait_for(written, timeout=60, what="the sidecar to write its environment")


@pytest.fixture
def setup(tmp_path, start_server):
    root = tmp_path / "plugins"
    folder = write_plugin(root, "key-test", *python_sidecar("key-test", ENV_DUMPER, env={"GREETING": "hi"}))
    server = start_server({"SVC_DISPLAY_PLUGINS_DIR": str(root), "SVC_SAAS_API_KEY": "not-for-sidecars"})
    env = sidecar_env(folder)
    return server, folder, env


def as_sidecar(env: dict, method: str, path: str, key: str | None = None, **kwargs) -> requests.Response:
    """A request the way a sidecar makes it: its URL, its key, trusting the CA it was given."""
    headers = {"Authorization": f"Bearer {key or env['SVC_DISPLAY_API_KEY']}"}
    return requests.request(method, env["SVC_DISPLAY_API_URL"] + path, headers=headers,
                            verify=env["SVC_DISPLAY_API_CA"], timeout=15, **kwargs)


def test_the_sidecar_environment(setup):
    server, folder, env = setup
    assert env["SVC_PLUGIN_ID"] == "key-test" and env["SVC_PLUGIN_DIR"] == str(folder.resolve())
    assert env["SVC_DISPLAY_API_URL"] == f"https://127.0.0.1:{server.port}"
    assert env["SVC_DISPLAY_API_CA"] == str(server.data_dir / "tls" / "display-cert.pem")
    assert env["SVC_DISPLAY_API_KEY"].startswith("svcp_") and env["GREETING"] == "hi"
    row = rows_by_id(server, server.key("admin"))["key-test"]
    assert int(env["SVC_PLUGIN_PORT"]) == row["sidecar"]["port"]
    # the display's own configuration and secrets stay out of the sidecar
    hidden = ("SVC_DISPLAY_DATA", "SVC_SAAS", "SVC_DISPLAY_PLUGINS")
    assert not [name for name in env if name.startswith(hidden)]
    assert env["__cwd__"] == str(folder.resolve())  # it runs in its folder


def test_the_key_can_do_its_three_things(setup):
    server, _folder, env = setup
    session = as_sidecar(env, "GET", "/v1/adoption/session").json()
    assert session["identifier"] == "plugin:key-test" and session["role"] == "plugin"
    assert set(session["permissions"]) == PLUGIN_PERMISSIONS

    signal_put = as_sidecar(env, "PUT", "/v1/runtime/signals/motion_detected",
                            json={"value": True, "ttl_seconds": 60})
    assert signal_put.status_code == 200, signal_put.text
    assert as_sidecar(env, "DELETE", "/v1/runtime/signals/motion_detected").status_code == 200

    alert = as_sidecar(env, "POST", "/v1/alerts",
                       json={"title": "Printer", "body": "out of paper", "source": "plugin:key-test"})
    assert alert.status_code == 201, alert.text

    own = as_sidecar(env, "PUT", "/v1/config/key-values",
                     json={"key": "ticker.marquee.key-test", "value": "hello"})
    assert own.status_code == 200, own.text
    admin = server.key("admin")
    values = {kv["key"]: kv["value"] for kv in server.get("/v1/config/key-values", key=admin).json()["items"]}
    assert values["ticker.marquee.key-test"] == "hello"
    marquee = server.get("/v1/ticker/items", key=admin).json()["items"]
    assert {"kind": "plugin", "body": "hello"} in [{"kind": i["kind"], "body": i["body"]} for i in marquee]
    for key in ("ticker.marquee.other", "ticker.marquee.key-test2", "display_theme_id", ""):
        other = as_sidecar(env, "PUT", "/v1/config/key-values", json={"key": key, "value": "x"})
        assert other.status_code == 403 and other.json()["code"] == "forbidden", key
    server.request("PUT", "/v1/config/key-values", key=admin,
                   json={"key": "ticker.marquee.other", "value": "a"})
    foreign = as_sidecar(env, "DELETE", "/v1/config/key-values", params={"key": "ticker.marquee.other"})
    assert foreign.status_code == 403
    assert as_sidecar(env, "DELETE", "/v1/config/key-values",
                      params={"key": "ticker.marquee.key-test"}).status_code == 200
    values = {kv["key"] for kv in server.get("/v1/config/key-values", key=admin).json()["items"]}
    assert "ticker.marquee.other" in values and "ticker.marquee.key-test" not in values

    # not an adoption client
    clients = server.get("/v1/adoption/clients", key=admin).json()["items"]
    assert not [c for c in clients if "key-test" in c["identifier"]]


def _fill(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "walk-param", template)


def test_the_key_gets_403_on_everything_else(setup):
    """Every operation of the route table (from the served OpenAPI document, which names each
    one's permission): the three permissions, reads and public routes pass; everything else 403."""
    server, _folder, env = setup
    document = server.get("/v1/openapi.json").json()
    checked, failures = 0, []
    for path, methods in sorted(document["paths"].items()):
        for method, operation in sorted(methods.items()):
            permission = operation["x-permission"]
            kwargs = {"json": {}} if method in ("post", "put", "patch") else {}
            answer = as_sidecar(env, method.upper(), _fill(path), **kwargs)
            allowed = permission in ("@public", "@authenticated") or permission in PLUGIN_PERMISSIONS
            checked += 1
            if allowed and answer.status_code in (401, 403) or not allowed and answer.status_code != 403:
                failures.append(f"{method.upper()} {path} ({permission}): {answer.status_code}")
            if answer.status_code >= 500:
                failures.append(f"{method.upper()} {path}: {answer.status_code} {answer.text[:200]}")
    assert checked > 100
    assert not failures, "\n".join(failures)


def test_the_key_is_replaced_at_every_start_and_never_stored(setup):
    server, folder, env = setup
    old_key = env["SVC_DISPLAY_API_KEY"]
    admin = server.key("admin")
    pid = rows_by_id(server, admin)["key-test"]["sidecar"]["pid"]
    os.kill(pid, signal.SIGKILL)  # the sidecar dies; the display starts it again with a new key
    new_env = sidecar_env(folder, not_key=old_key)
    wait_for(lambda: rows_by_id(server, admin)["key-test"]["state"] == "running", what="the restart")
    assert not alive(pid)
    assert as_sidecar(new_env, "GET", "/v1/runtime/signals").status_code == 200
    gone = as_sidecar(env, "GET", "/v1/runtime/signals")
    assert gone.status_code == 401 and gone.json()["code"] == "unauthorized"
    assert rows_by_id(server, admin)["key-test"]["sidecar"]["restart_count"] == 1
    # only hashes: neither key appears in the data dir nor in the log
    for path in server.data_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            for key in (old_key, new_env["SVC_DISPLAY_API_KEY"]):
                assert key.encode() not in content, path
    assert old_key not in server.log and new_env["SVC_DISPLAY_API_KEY"] not in server.log
