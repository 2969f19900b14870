"""User data on disk is for the serving user only, and TLS 1.2 offers AEAD suites only."""
from __future__ import annotations

import base64
import os
import socket
import ssl
import stat

import pytest

from tests.private_files import loose_modes

pytestmark = pytest.mark.slow

PNG_1x1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def test_every_file_in_the_data_dir_is_private(start_server, backend):
    server = start_server()
    key = server.key("admin")
    created = server.request("POST", "/v1/screens", key=key, timeout=15,
                             json={"id": "private", "screen_type": "message", "config_json": {"body": "x"}})
    assert created.status_code == 201, created.text
    files, loose = loose_modes(server.data_dir)
    assert stat.S_IMODE(os.stat(server.data_dir).st_mode) == 0o700
    if backend == "sqlite":
        names = {p.name for p in server.data_dir.iterdir()}
        assert {"svc_display.sqlite3", "svc_display.sqlite3-wal", "svc_display.sqlite3-shm"} <= names
    assert files >= 3 and not loose, loose


def test_a_world_readable_database_of_an_older_release_is_tightened(start_server, env):
    from pathlib import Path

    data = Path(env["SVC_DISPLAY_DATA_DIR"])
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    database = data / "svc_display.sqlite3"
    database.touch()
    os.chmod(database, 0o644)
    start_server()
    assert stat.S_IMODE(os.stat(database).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(data).st_mode) == 0o700


CBC_SUITES = "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384"


def _tls12(port: int, ciphers: str) -> str:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers(ciphers)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw) as tls:
            return tls.cipher()[0]


def test_tls12_offers_aead_suites_only(start_server):
    server = start_server()
    with pytest.raises(ssl.SSLError):
        _tls12(server.port, CBC_SUITES)
    assert "GCM" in _tls12(server.port, "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-SHA")
    assert "CHACHA20" in _tls12(server.port, "ECDHE-ECDSA-CHACHA20-POLY1305")
