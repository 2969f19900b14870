"""``svc-controller serve``: configuration, TLS, storage and migrations, OpenAPI, error shape."""
from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys

import pytest
import requests

from svc_controller.config import load_controller_settings
from svc_host.config import ConfigError
from tests.controllers import ControllerProcess
from tests.private_files import loose_modes

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def controller(tmp_path_factory):
    process = ControllerProcess(tmp_path_factory.mktemp("ctl") / "data").start()
    yield process
    process.stop()


@pytest.mark.parametrize("variable, value, words", [
    ("SVC_CONTROLLER_PORT", "70000", "integer from 0 to 65535"),
    ("SVC_CONTROLLER_TLS", "maybe", "1 or 0"),
    ("SVC_CONTROLLER_BIND", "not an address", "IPv4 or IPv6"),
    ("SVC_CONTROLLER_PROXY_UPSTREAM_TIMEOUT_MS", "soon", "integer"),
    ("SVC_CONTROLLER_DATABASE_URL", "mysql://x/y", "postgres"),
    ("SVC_CONTROLLER_RELEASES_URL", "ftp://x/releases.json", "http"),
    ("SVC_CONTROLLER_PROXY_ALLOWED_HOSTS", "good.example, bad host", "host names"),
    ("SVC_CONTROLLER_TIMEZONE", "Mars/Olympus", "IANA"),
    ("SVC_CONTROLLER_AUTH_ENABLED", "1", "SVC_CONTROLLER_SESSION_SECRET"),
])
def test_bad_configuration_fails_with_one_line(variable, value, words):
    with pytest.raises(ConfigError) as caught:
        load_controller_settings({variable: value})
    message = str(caught.value)
    assert "\n" not in message and words in message and message.startswith(
        variable if variable != "SVC_CONTROLLER_AUTH_ENABLED" else "SVC_CONTROLLER_SESSION_SECRET")


def test_defaults_follow_the_spec(tmp_path):
    settings = load_controller_settings({})
    assert (settings.bind, settings.port, settings.tls, settings.auth_enabled) == ("127.0.0.1", 5199, True, False)
    assert settings.proxy_upstream_timeout_ms == 180000
    assert settings.data_dir.name == "data" and settings.database_url is None
    assert load_controller_settings({"TZ": "Europe/Paris"}).timezone == "Europe/Paris"


def test_serve_exits_on_bad_configuration_with_one_clear_line(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "SVC_CONTROLLER_DATA_DIR": str(tmp_path / "d"),
           "SVC_CONTROLLER_AUTH_ENABLED": "1"}
    out = subprocess.run([sys.executable, "-m", "svc_controller", "serve"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "svc-controller: configuration error: SVC_CONTROLLER_SESSION_SECRET: expected a secret because "
        "SVC_CONTROLLER_AUTH_ENABLED=1"]
    assert not (tmp_path / "d").exists()


def test_serves_https_with_its_own_certificate_health_and_migrations(controller):
    # the generated certificate verifies the connection; plain HTTP is not spoken
    r = controller.get("/bff/v1/health")
    assert r.status_code == 200
    body = r.json()
    assert body["app"] == "svc-controller" and body["auth_enabled"] is False and body["schema_version"] >= 3
    key = controller.data_dir / "tls" / "controller-key.pem"
    assert key.stat().st_mode & 0o777 == 0o600
    assert controller.data_dir.stat().st_mode & 0o777 == 0o700
    # plain HTTP to the HTTPS port: told to use https (svc_host/http/connection/limits.py's TlsGate)
    plain = requests.get(f"http://127.0.0.1:{controller.port}/bff/v1/health", timeout=5)
    assert plain.status_code == 400 and "use https://" in plain.text
    with sqlite3.connect(controller.data_dir / "svc_controller.sqlite3") as db:
        applied = {row[0] for row in db.execute("SELECT migration_id FROM svc_applied_migration")}
    assert "0001_baseline" in applied and len(applied) == body["schema_version"]


def test_every_file_in_the_data_dir_is_private_and_an_older_loose_tls_folder_is_tightened(tmp_path):
    """The controller's data dir follows the display's modes (0700 folders, 0600 files), its
    certificate included; a tls/ folder and certificate left 0755/0644 are tightened."""
    first = ControllerProcess(tmp_path / "data", {"SVC_CONTROLLER_SCHEDULER_TICK_MS": "60000"}).start()
    try:
        assert first.get("/bff/v1/health").status_code == 200
        created = first.request("PUT", "/bff/v1/backup-targets", json={
            "displayId": "private", "baseUrl": "https://127.0.0.1:1", "apiKey": "k" * 20})
        assert created.status_code in (200, 201), created.text
    finally:
        first.stop()
    files, loose = loose_modes(first.data_dir)
    assert files >= 4 and not loose, loose
    assert stat.S_IMODE(first.data_dir.stat().st_mode) == 0o700
    tls = first.data_dir / "tls"
    os.chmod(tls, 0o755)
    os.chmod(tls / "controller-cert.pem", 0o644)
    again = ControllerProcess(tmp_path / "data").start()
    again.stop()
    assert stat.S_IMODE(tls.stat().st_mode) == 0o700
    assert stat.S_IMODE((tls / "controller-cert.pem").stat().st_mode) == 0o600


def test_openapi_documents_every_bff_route(controller):
    doc = controller.get("/bff/v1/openapi.json").json()
    assert doc["openapi"] == "3.1.0" and doc["info"]["title"] == "svc-controller"
    for path in ("/bff/v1/backup-targets", "/bff/v1/backup-targets/{id}/pull-now",
                 "/bff/v1/backup-snapshots/{id}/restore", "/bff/v1/releases/{product}", "/bff/v1/auth/login",
                 "/bff/v1/proxy/{path}"):
        assert path in doc["paths"], path
    upsert = doc["paths"]["/bff/v1/backup-targets"]["put"]["requestBody"]["content"]["application/json"]
    assert upsert["schema"]["$ref"].endswith("TargetUpsert")
    assert "sessionCookie" in doc["components"]["securitySchemes"]


def test_errors_have_the_contract_shape(controller):
    r = controller.get("/bff/v1/no-such-route")
    assert r.status_code == 404 and r.json() == {"code": "not_found", "message": "no such resource"}
    r = controller.request("PUT", "/bff/v1/backup-targets", data="{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "invalid_json"
    r = controller.request("PUT", "/bff/v1/backup-targets", json=["a list"])
    assert r.status_code == 400 and r.json()["code"] == "invalid_json"
    r = controller.request("PUT", "/bff/v1/backup-targets", json={"displayId": "x"})
    assert r.status_code == 400 and r.json()["code"] == "validation_failed" and "baseUrl" in r.json()["details"]
    r = controller.request("PATCH", "/bff/v1/backup-targets", json={})
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"
    assert controller.get("/bff/v1/backup-targets").json() == {"items": []}


def test_the_web_app_has_its_place_at_the_root(controller):
    r = controller.get("/")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    assert "/bff/v1/openapi.json" in r.text


def test_releases_without_a_release_list_are_503(controller):
    r = controller.get("/bff/v1/releases/svc-display")
    assert r.status_code == 503 and r.json()["code"] == "releases_unavailable"
