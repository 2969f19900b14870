"""Provider secrets: write-only through PATCH, Fernet-encrypted at rest, never logged or returned."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from pony import orm

from svc_host.secrets import KEY_FILE, SecretBox
from tests.integrations.probes import Probes
import pytest
from hookspecs.services import INTEGRATIONS

pytestmark = pytest.mark.svc_display_storage

PLAINTEXT = "pk_live_ZXCV-plaintext-4f9a1c"


def _files_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_secrets_are_write_only_encrypted_and_never_logged(make_host, api_for, env, caplog):
    caplog.set_level(logging.DEBUG)
    probes = Probes()
    host = make_host(plugins=[("probes", probes)])
    api = api_for(host)
    response = api.patch("/v1/integrations/general_probe", json={"secrets": {"token": PLAINTEXT}})
    assert response.status_code == 200
    assert PLAINTEXT not in response.text
    assert response.json["secrets_configured"] is True
    assert response.json["secret_fields"] == [{"name": "token", "configured": True}]
    for path in (
        "/v1/integrations",
        "/v1/integrations/general_probe",
        "/v1/integrations?include_config_schema=true",
    ):
        assert PLAINTEXT not in api.get(path).text

    # the collector gets the plaintext; its telemetry and failures show it masked
    assert host.services[INTEGRATIONS].run_now("general_probe").status == "ok"
    assert probes.calls[-1]["secrets"] == {"token": PLAINTEXT}
    api.patch("/v1/integrations/general_broken", json={"secrets": {"token": PLAINTEXT}})
    failed = host.services[INTEGRATIONS].run_now("general_broken")
    assert failed.status == "failed" and "***" in failed.message and PLAINTEXT not in failed.message
    telemetry = api.get("/v1/telemetry/integrations?limit=2000").text
    assert PLAINTEXT not in telemetry and "***" in telemetry

    with orm.db_session:
        stored = host.db.IntegrationSecret.get(integration_id="general_probe", name="token").ciphertext
    assert PLAINTEXT not in stored and stored.startswith("gAAAA")  # a Fernet token
    if host.db.provider_name == "sqlite":
        assert PLAINTEXT.encode() not in _files_bytes(Path(env["SVC_DISPLAY_DATA_DIR"]))
    else:
        with orm.db_session:
            dump = repr(host.db.select("SELECT * FROM svc_integration_secret")) + repr(
                host.db.select("SELECT * FROM svc_integration")
            )
        assert PLAINTEXT not in dump
    assert PLAINTEXT not in caplog.text

    # null deletes a secret
    cleared = api.patch("/v1/integrations/general_probe", json={"secrets": {"token": None}}).json
    assert cleared["secrets_configured"] is False


def test_key_file_fallback_is_private(make_host, env):
    host = make_host()
    box = host.services[INTEGRATIONS].secret_box
    token = box.encrypt("value")
    assert box.decrypt(token) == "value"
    assert box.key_location == "file"
    key_path = Path(env["SVC_DISPLAY_DATA_DIR"]) / KEY_FILE
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600
    # the same data dir decrypts after a restart
    assert SecretBox(Path(env["SVC_DISPLAY_DATA_DIR"])).decrypt(token) == "value"


def test_keyring_backend_holds_the_key_when_available(tmp_path, memory_keyring):
    box = SecretBox(tmp_path / "data")
    token = box.encrypt("abc")
    assert box.key_location == "keyring"
    assert not (tmp_path / "data" / KEY_FILE).exists()
    assert len(memory_keyring.values) == 1
    assert SecretBox(tmp_path / "data").decrypt(token) == "abc"
    assert SecretBox(tmp_path / "other").decrypt(token) is None  # another display's key
