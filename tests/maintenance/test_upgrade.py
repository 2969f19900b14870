"""In-band upgrade against HTTPS servers the test starts on 127.0.0.1 with its own CA."""
from __future__ import annotations

import datetime
import ipaddress
import os
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.x509.oid import NameOID

from svc_display.testing import ServerProcess
from tests.maintenance.archives import members_of
from tests.maintenance.conftest import server_env

pytestmark = pytest.mark.slow

HELPER = """#!/bin/sh
echo "helper: installing $1"
if grep -q SLOW "$1"; then sleep 60; fi
if grep -q FAIL "$1"; then echo "helper: cannot install this" >&2; exit 3; fi
echo "helper: done"
"""
MAX_BYTES = 100_000


def _certificate(folder: Path, name: str, issuer_key=None, issuer_name=None, ca: bool = False):
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name or subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1)))
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    else:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                        critical=False)
    cert = builder.sign(issuer_key or key, hashes.SHA256())
    cert_path, key_path = folder / f"{name}.pem", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert, key, cert_path, key_path


class Files(BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    redirects: dict[str, str] = {}  # path -> Location
    hits: list[str] = []  # every path asked for, in order

    def do_GET(self) -> None:  # noqa: N802
        self.hits.append(self.path)
        if self.path in self.redirects:
            self.send_response(302)
            self.send_header("Location", self.redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = self.files.get(self.path.split("?")[0])
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        if not self.path.startswith("/stream/"):  # /stream/...: no Content-Length, the body ends at close
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


class PlainFiles(Files):
    """The same files over plain http, with hits of their own."""

    hits: list[str] = []


def _https_server(cert_path: Path, key_path: Path) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Files)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _http_server() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), PlainFiles)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = tmp_path_factory.mktemp("upgrade")
    ca_cert, ca_key, ca_path, _ = _certificate(folder, "test-ca", ca=True)
    _, _, leaf_cert, leaf_key = _certificate(folder, "release-server", ca_key, ca_cert.subject)
    _, _, rogue_cert, rogue_key = _certificate(folder, "rogue-server")  # self-signed, not from the CA
    good = _https_server(leaf_cert, leaf_key)
    rogue = _https_server(rogue_cert, rogue_key)
    plain = _http_server()

    signer = Ed25519PrivateKey.generate()
    other = Ed25519PrivateKey.generate()
    public = folder / "release-key.pem"
    public.write_bytes(signer.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo))

    def publish(path: str, data: bytes, key=signer) -> str:
        Files.files[path] = data
        Files.files[path + ".sig"] = key.sign(data)
        return path

    publish("/release.bin", b"release 2.0 " + os.urandom(20_000))
    publish("/forged.bin", b"release 2.0 forged", key=other)
    publish("/fails.bin", b"FAIL " + os.urandom(100))
    publish("/slow.bin", b"SLOW " + os.urandom(100))
    publish("/large.bin", os.urandom(MAX_BYTES + 1))
    publish("/stream/large.bin", os.urandom(MAX_BYTES * 3))
    Files.files["/unsigned.bin"] = b"release 2.0 without a signature " + os.urandom(100)

    helper = folder / "upgrade-helper"
    helper.write_text(HELPER)
    helper.chmod(0o700)
    display = ServerProcess(server_env(folder, SVC_DISPLAY_UPGRADE_SCRIPT=str(helper),
                                       SVC_DISPLAY_UPGRADE_ANY_ARCH="1", SVC_DISPLAY_UPGRADE_CA_FILE=str(ca_path),
                                       SVC_DISPLAY_UPGRADE_PUBLIC_KEY=str(public),
                                       SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS="2",
                                       SVC_DISPLAY_UPGRADE_MAX_BYTES=str(MAX_BYTES))).start(timeout=60)
    display.admin = display.key("admin")
    display.ca_path, display.plain = ca_path, f"http://127.0.0.1:{plain.server_address[1]}"
    yield display, f"https://127.0.0.1:{good.server_address[1]}", f"https://127.0.0.1:{rogue.server_address[1]}", \
        helper
    display.stop()
    good.shutdown()
    rogue.shutdown()
    plain.shutdown()


def _upgrade(display, url: str, key: str | None = None) -> dict:
    key = key or display.admin
    answer = display.request("POST", "/v1/display/ops/upgrade", key=key, json={"download_url": url})
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["job_id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = display.get(f"/v1/display/ops/upgrade/{job_id}", key=key).json()
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(job)


def test_signed_download_is_installed(setup):
    display, base, _rogue, _helper = setup
    assert display.get("/v1/health").json()["upgrade_capable"] is True
    job = _upgrade(display, base + "/release.bin")
    assert set(job) == {"job_id", "status", "download_url", "bytes_downloaded", "bytes_total", "started_at_ms",
                        "finished_at_ms", "error", "log_tail"}
    assert job["status"] == "succeeded" and job["error"] is None, job
    assert job["bytes_downloaded"] == job["bytes_total"] == len(Files.files["/release.bin"])
    assert "helper: installing" in job["log_tail"] and "helper: done" in job["log_tail"]
    assert job["download_url"] == base + "/release.bin" and job["finished_at_ms"] >= job["started_at_ms"]
    assert not list((display.data_dir / "upgrade").iterdir())  # the download is not left behind
    # a database-only backup was made before the helper ran; its job id opens the log tail
    first, rest = job["log_tail"].split("\n", 1)
    backup_id = re.fullmatch(r"pre-upgrade backup: job ([0-9a-f]{32}) ready \(\d+ bytes, database only\): .*",
                             first).group(1)
    assert rest.startswith("helper: installing")
    backup = display.get(f"/v1/display/backup/jobs/{backup_id}", key=display.admin).json()
    assert (backup["status"], backup["include_database"], backup["include_blobs"]) == ("ready", True, False)
    assert job["started_at_ms"] <= backup["created_at_ms"] <= backup["finished_at_ms"]
    assert backup["finished_at_ms"] <= job["finished_at_ms"]
    archive = display.get(f"/v1/display/backup/jobs/{backup_id}/download", key=display.admin).content
    assert sorted(members_of(archive)) == ["db/svc_display.sqlite3", "manifest.json"]


def test_the_helper_does_not_run_without_its_pre_upgrade_backup(setup):
    display, base, _rogue, _helper = setup
    media = display.data_dir / "media" / "bench"
    media.mkdir(parents=True, exist_ok=True)
    (media / "large.bin").write_bytes(os.urandom(60 * 1024 * 1024))  # a job the backup waits behind
    try:
        ahead = display.request("POST", "/v1/display/backup/jobs?format=tgz", key=display.admin)
        ahead = ahead.json()["job_id"]
        answer = display.request("POST", "/v1/display/ops/upgrade", key=display.admin,
                                 json={"download_url": base + "/release.bin"})
        job_url = f"/v1/display/ops/upgrade/{answer.json()['job_id']}"
        deadline = time.monotonic() + 60
        while not (found := re.match(r"pre-upgrade backup: job ([0-9a-f]{32}) running",
                                     display.get(job_url, key=display.admin).json()["log_tail"])):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        waiting = display.get(f"/v1/display/backup/jobs/{found.group(1)}", key=display.admin).json()
        assert waiting["status"] == "pending", waiting  # behind the job ahead of it
        display.request("DELETE", f"/v1/display/backup/jobs/{found.group(1)}", key=display.admin)
        while (job := display.get(job_url, key=display.admin).json())["status"] not in ("succeeded",
                                                                                        "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert job["status"] == "failed" and "pre-upgrade backup" in job["error"], job
        assert "helper was not run" in job["error"] and "helper:" not in job["log_tail"]
    finally:
        (media / "large.bin").unlink()
        display.request("DELETE", f"/v1/display/backup/jobs/{ahead}", key=display.admin)


@pytest.mark.parametrize("path,error", [
    ("/forged.bin", "signature does not verify"),
    ("/fails.bin", "exited with status 3"),
    ("/slow.bin", "ran longer than 2 s"),
    ("/large.bin", "more than the 100000 allowed"),
    ("/stream/large.bin", "exceeds the 100000 bytes allowed"),
    ("/missing.bin", "HTTP 404"),
])
def test_failures(setup, path, error):
    display, base, _rogue, _helper = setup
    job = _upgrade(display, base + path)
    assert job["status"] == "failed" and error in job["error"], job
    if path == "/fails.bin":
        assert "helper: cannot install this" in job["log_tail"]
    if path == "/forged.bin":
        assert "helper" not in job["log_tail"]  # never installed


def test_a_redirect_to_plain_http_is_refused_before_it_is_followed(setup):
    display, base, _rogue, _helper = setup
    Files.redirects["/to-http.bin"] = display.plain + "/release.bin"
    PlainFiles.hits.clear()
    job = _upgrade(display, base + "/to-http.bin")
    assert PlainFiles.hits == []  # the http server was never asked
    assert job["status"] == "failed" and "not https://" in job["error"], job
    assert "not followed" in job["error"]
    assert "helper" not in job["log_tail"]


def test_https_redirects_are_followed_up_to_a_limit(setup):
    display, base, _rogue, _helper = setup
    Files.redirects["/moved.bin"] = base + "/release.bin"
    Files.redirects["/moved.bin.sig"] = "/release.bin.sig"  # relative, resolved against the https URL
    job = _upgrade(display, base + "/moved.bin")
    assert job["status"] == "succeeded", job
    assert job["bytes_downloaded"] == len(Files.files["/release.bin"])
    Files.redirects["/loop.bin"] = base + "/loop.bin"
    Files.hits.clear()
    job = _upgrade(display, base + "/loop.bin")
    assert job["status"] == "failed" and "redirected more than 5 times" in job["error"], job
    assert Files.hits == ["/loop.bin"] * 6


def test_a_missing_signature_fails_when_a_key_is_set(setup):
    display, base, _rogue, _helper = setup
    job = _upgrade(display, base + "/unsigned.bin")
    assert job["status"] == "failed", job
    assert "a signature is required" in job["error"] and "HTTP 404" in job["error"], job
    assert "helper" not in job["log_tail"]  # never installed


def test_without_a_public_key_an_unsigned_download_installs_and_trusts_the_system_ca_store(setup, tmp_path):
    """No SVC_DISPLAY_UPGRADE_CA_FILE: the system store as OpenSSL finds it (here SSL_CERT_FILE
    names the test CA, which a CA bundle shipped with a package, certifi, would ignore)."""
    display, base, rogue, helper = setup
    other = ServerProcess(server_env(tmp_path, SVC_DISPLAY_UPGRADE_SCRIPT=str(helper),
                                     SVC_DISPLAY_UPGRADE_ANY_ARCH="1", SSL_CERT_FILE=str(display.ca_path),
                                     SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS="5")).start(timeout=60)
    try:
        key = other.key("admin")
        job = _upgrade(other, base + "/unsigned.bin", key)
        assert job["status"] == "succeeded" and job["error"] is None, job
        assert "helper: installing" in job["log_tail"] and "helper: done" in job["log_tail"]
        job = _upgrade(other, rogue + "/release.bin", key)  # a certificate not from the trusted store
        assert job["status"] == "failed" and "certificate verification failed" in job["error"], job
    finally:
        other.stop()


def test_certificate_from_another_ca_fails(setup):
    display, _base, rogue, _helper = setup
    job = _upgrade(display, rogue + "/release.bin")
    assert job["status"] == "failed" and "certificate verification failed" in job["error"], job


@pytest.mark.parametrize("url", ["http://127.0.0.1/release.bin", "ftp://127.0.0.1/x", "https://", "release.bin"])
def test_only_https_urls(setup, url):
    display = setup[0]
    answer = display.request("POST", "/v1/display/ops/upgrade", key=display.admin, json={"download_url": url})
    assert answer.status_code == 400 and answer.json()["code"] == "validation_failed"
    assert "download_url" in answer.json()["details"]


def test_one_at_a_time_and_409_when_not_capable(setup):
    display, base, _rogue, helper = setup
    first = display.request("POST", "/v1/display/ops/upgrade", key=display.admin,
                            json={"download_url": base + "/slow.bin"})
    assert first.status_code == 202
    second = display.request("POST", "/v1/display/ops/upgrade", key=display.admin,
                             json={"download_url": base + "/release.bin"})
    assert second.status_code == 409 and second.json()["code"] == "upgrade_in_progress"
    deadline = time.monotonic() + 60
    while display.get(f"/v1/display/ops/upgrade/{first.json()['job_id']}",
                      key=display.admin).json()["status"] not in ("succeeded", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    helper.chmod(0o600)  # no executable helper: not capable
    try:
        assert display.get("/v1/health").json()["upgrade_capable"] is False
        answer = display.request("POST", "/v1/display/ops/upgrade", key=display.admin,
                                 json={"download_url": base + "/release.bin"})
        assert answer.status_code == 409 and answer.json()["code"] == "upgrade_unavailable"
    finally:
        helper.chmod(0o700)
    assert display.get("/v1/display/ops/upgrade/" + "0" * 32, key=display.admin).status_code == 404


@pytest.mark.parametrize("name,value", [("SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS", "0"),
                                        ("SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS", "1801"),
                                        ("SVC_DISPLAY_UPGRADE_MAX_BYTES", str(1024 ** 3 + 1)),
                                        ("SVC_DISPLAY_UPGRADE_ANY_ARCH", "sometimes")])
def test_upgrade_settings_only_lower_the_contract_limits(tmp_path, name, value):
    from svc_host.config import ConfigError, load_settings, read_plugin_settings
    from svc_host.plugins import load_plugins

    def values(env):
        return read_plugin_settings(load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path), **env}),
                                    load_plugins()).plugin_values("maintenance")

    with pytest.raises(ConfigError, match=f"{name}: .*declared by plugin 'maintenance'"):
        values({name: value})
    defaults = values({})
    assert (defaults.upgrade_timeout_seconds, defaults.upgrade_max_bytes) == (1800, 1024 ** 3)
    assert defaults.upgrade_any_arch is False and defaults.upgrade_public_key is None
