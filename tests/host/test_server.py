"""The real server process: TLS by default, certificate lifecycle, plain HTTP, waitress, SIGTERM."""
import datetime as dt
import errno
import hashlib
import ipaddress
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from svc_display.testing import ServerProcess
from svc_display.testing.waiting import ProcessExited, wait_for
from svc_host.config import load_settings
from svc_host.tls import ensure_certificate, generate_self_signed, local_ipv4_addresses

HEALTH_FIELDS = {"status", "app", "version", "build", "schema_version", "platform_os", "platform_os_version",
                 "hostname", "cpu_count", "python_version", "platform_arch", "upgrade_capable", "uptime_seconds",
                 "plugins_dir_configured"}


def peer_certificate(port: int, cafile: str) -> bytes:
    context = ssl.create_default_context(cafile=cafile)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            return tls.getpeercert(binary_form=True)


def test_tls_by_default_with_a_verifiable_self_signed_certificate(start_server, backend):
    server = start_server()
    assert server.url.startswith("https://")
    der = peer_certificate(server.port, server.verify)  # full verification: chain + hostname
    cert = x509.load_der_x509_certificate(der)
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in san.get_values_for_type(x509.DNSName)
    assert socket.gethostname() in san.get_values_for_type(x509.DNSName)
    ips = {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    assert set(local_ipv4_addresses()) <= ips and "127.0.0.1" in ips

    health = server.get("/v1/health")
    assert health.status_code == 200
    body = health.json()
    assert HEALTH_FIELDS <= set(body)
    assert body["status"] == "ok" and body["app"] == "svc-display"
    assert isinstance(body["schema_version"], int) and isinstance(body["uptime_seconds"], int)
    assert body["plugins_dir_configured"] is False and body["upgrade_capable"] is False
    if backend == "postgres":
        assert body["schema_version"] == 1

    with pytest.raises(requests.exceptions.SSLError):  # an unrelated CA does not trust it
        requests.get(server.url + "/v1/health", timeout=5, verify=True)


def test_certificate_is_reused_across_restarts(start_server):
    first = start_server()
    fingerprint = hashlib.sha256(peer_certificate(first.port, first.verify)).hexdigest()
    first.stop()
    second = start_server()
    assert hashlib.sha256(peer_certificate(second.port, second.verify)).hexdigest() == fingerprint


@pytest.mark.parametrize("svc_display_backend", ["sqlite"], indirect=True)  # certificate handling does not touch the database
def test_unreadable_or_expired_certificates_are_replaced(tmp_path, backend):
    settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path)})
    cert_path, key_path = ensure_certificate(settings)
    original = cert_path.read_bytes()
    assert ensure_certificate(settings) == (cert_path, key_path) and cert_path.read_bytes() == original
    assert oct(key_path.stat().st_mode & 0o777) == "0o600"

    cert_path.write_text("garbage")
    ensure_certificate(settings)
    renewed = x509.load_pem_x509_certificate(cert_path.read_bytes())
    assert renewed.not_valid_after_utc > dt.datetime.now(dt.timezone.utc)

    key = serialization.load_pem_private_key(key_path.read_bytes(), None)
    now = dt.datetime.now(dt.timezone.utc)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "old")])
    expired = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
               .serial_number(1).not_valid_before(now - dt.timedelta(days=30))
               .not_valid_after(now - dt.timedelta(days=1)).sign(key, hashes.SHA256()))
    cert_path.write_bytes(expired.public_bytes(serialization.Encoding.PEM))
    ensure_certificate(settings)
    assert x509.load_pem_x509_certificate(cert_path.read_bytes()).not_valid_after_utc > now

    other_key = ec.generate_private_key(ec.SECP256R1())
    key_path.write_bytes(other_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    ensure_certificate(settings)  # a key that does not match the certificate is replaced too
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    key = serialization.load_pem_private_key(key_path.read_bytes(), None)
    assert cert.public_key().public_numbers() == key.public_key().public_numbers()


def test_certificate_and_key_path_overrides(start_server, tmp_path):
    cert, key = tmp_path / "own" / "cert.pem", tmp_path / "own" / "key.pem"
    generate_self_signed(cert, key, "own-display", ["127.0.0.1"])
    server = start_server({"SVC_DISPLAY_HTTP_TLS_CERT": str(cert), "SVC_DISPLAY_HTTP_TLS_KEY": str(key)})
    served = x509.load_der_x509_certificate(peer_certificate(server.port, str(cert)))
    assert served == x509.load_pem_x509_certificate(cert.read_bytes())
    assert not (server.data_dir / "tls").exists()


def test_plain_http_when_tls_is_off(start_server):
    server = start_server({"SVC_DISPLAY_HTTP_TLS": "0"})
    assert server.url.startswith("http://")
    assert server.get("/v1/health").json()["status"] == "ok"


def test_waitress_serves_the_same_app_over_plain_http(start_server):
    server = start_server({"SVC_DISPLAY_HTTP_SERVER": "waitress"})
    assert server.get("/v1/health").json()["status"] == "ok"
    assert server.get("/v1/nowhere").json()["code"] == "not_found"
    assert server.stop() == 0


def test_keys_created_while_serving_work_at_once(start_server):
    server = start_server()
    key = server.key("viewer")
    assert server.get("/v1/health", key=key).status_code == 200
    assert server.request("GET", "/v1/openapi.json", key=key).status_code == 200


@pytest.mark.parametrize("server_kind", ["uvicorn", "waitress"])
def test_sigterm_lets_in_flight_requests_finish(start_server, hello_plugin_path, server_kind):
    server = start_server({"SVC_DISPLAY_HTTP_SERVER": server_kind}, extra_pythonpath=[hello_plugin_path])
    key = server.key("viewer")
    result = {}

    def slow_call():
        result["response"] = server.get("/v1/hello", key=key, params={"delay_ms": 1500})

    worker = threading.Thread(target=slow_call)
    worker.start()
    time.sleep(0.5)
    server.process.send_signal(signal.SIGTERM)
    worker.join(20)
    assert result["response"].status_code == 200
    assert result["response"].json()["message"] == "hello, world"
    assert server.process.wait(30) == 0
    assert "stopped" in server.log


def test_the_console_names_the_urls_the_fingerprint_and_with_access_log_each_request(start_server):
    server = start_server({"SVC_DISPLAY_ACCESS_LOG": "1"})
    digest = hashlib.sha256(peer_certificate(server.port, server.verify)).hexdigest().upper()
    fingerprint = ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
    (line,) = [line for line in server.log.splitlines() if "listening on" in line]
    assert f"https://127.0.0.1:{server.port}" in line and fingerprint in line
    assert server.get("/v1/health?from=access-log-test").status_code == 200
    deadline = time.monotonic() + 10
    while "/v1/health?from=access-log-test" not in server.log and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any("GET /v1/health?from=access-log-test" in entry and "200" in entry
               for entry in server.log.splitlines())


def test_no_access_log_unless_asked(start_server):
    server = start_server()
    assert server.get("/v1/health?from=quiet-test").status_code == 200
    time.sleep(0.5)
    assert "quiet-test" not in server.log


def test_sigterm_drops_an_idle_tls_connection_whose_client_never_answers_the_close(start_server):
    """An idle kept-alive TLS client that never reads (so never answers close_notify) must
    not hold the stopping server for asyncio's 30 s TLS shutdown timeout."""
    server = start_server()
    context = ssl.create_default_context(cafile=server.verify)
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    tls = context.wrap_socket(raw, server_hostname="localhost")  # handshake done, then silence
    try:
        tls.sendall(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert tls.recv(65536).startswith(b"HTTP/1.1 200")  # a kept-alive connection, now idle
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(10)  # a generous bound; before the fix about 30 s
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server was still running {time.monotonic() - started:.0f} s after SIGTERM")
        assert code == 0
    finally:
        raw.close()


def test_a_taken_port_is_not_announced_and_a_test_server_reads_back_the_port_it_bound(env):
    """A server given a port another process holds (a fixed port: the point here) must not claim
    to listen there and exits with 3. The kit's servers are given none: they bind port 0 and
    the kit reads back the port the OS chose (``<data dir>/http-port``, removed at the stop), the
    one the "listening on" line names, so no port is guessed and none can be taken first."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        refused = ServerProcess({**env, "SVC_DISPLAY_HTTP_PORT": str(taken)})
        with pytest.raises(ProcessExited) as exited:
            refused.start(timeout=60)
        assert exited.value.returncode == 3
        assert any(line in refused.stderr for line in ServerProcess.PORT_TAKEN)
        assert "listening on" not in refused.stderr
        server = ServerProcess(env)
        try:
            server.start(timeout=60)
            assert server.port not in (0, taken)
            assert server.get("/v1/health").status_code == 200
            (line,) = [line for line in server.log.splitlines() if "listening on" in line]
            assert f"https://127.0.0.1:{server.port}" in line
            assert (server.data_dir / "http-port").read_text().strip() == str(server.port)
        finally:
            assert server.stop() == 0
        assert not (server.data_dir / "http-port").exists()


def test_a_display_writes_every_threads_stack_on_sigusr1_and_goes_on_serving(env):
    """``kill -USR1``: where a display that does not answer is stuck, said in its log."""
    server = ServerProcess(env).start(timeout=60)
    try:
        server.process.send_signal(signal.SIGUSR1)
        wait_for(lambda: "most recent call first" in server.stderr, 30, what="the stacks in the log")
        assert "Current thread" in server.stderr or "Thread 0x" in server.stderr
        assert server.get("/v1/health").status_code == 200
    finally:
        assert server.stop() == 0


def test_a_server_that_does_not_answer_in_time_is_stopped_with_its_stacks_in_the_message(tmp_path):
    """The kit's timeout says where the server hung (its stacks, asked for with SIGUSR1) and why
    the last health request failed."""
    hung = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_HTTP_PORT": "0"})
    program = ("import faulthandler, signal, time\n"
               "faulthandler.register(signal.SIGUSR1, all_threads=True)\n"
               "def stuck_in_startup():\n"
               "    time.sleep(120)\n"
               "stuck_in_startup()\n")
    with pytest.raises(RuntimeError) as failed:
        hung.launch([sys.executable, "-c", program], timeout=2)
    message = str(failed.value)
    assert "did not answer within 2s" in message and "the last: NotYet: no port in http-port yet" in message
    assert "stuck_in_startup" in message and "most recent call first" in message
    assert hung.process.poll() is not None


def test_a_port_the_os_chose_cannot_be_bound_by_another_program_before_the_server_answers(tmp_path):
    """The port a server asked for port 0 gets is listened on from the moment it is bound. A
    socket only bound left it open to another program's ``SO_REUSEADDR`` bind (uvicorn binds
    so, and a test that guessed a free port binds what the OS just handed out) until uvicorn
    listened: both then held the port, and a CI run's server had its health requests answered
    by the other one for 30 s. This bind succeeded before the fix."""
    from svc_host.server import forget_port, listen_on_any_port

    sock = listen_on_any_port("127.0.0.1", tmp_path)  # (listening_socket's, with the port file)
    port = sock.getsockname()[1]
    try:
        assert (tmp_path / "http-port").read_text().strip() == str(port)
        with socket.socket() as other:
            other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            with pytest.raises(OSError) as taken:
                other.bind(("127.0.0.1", port))
            assert taken.value.errno == errno.EADDRINUSE
    finally:
        forget_port(tmp_path, sock, port)
        sock.close()
    assert not (tmp_path / "http-port").exists()


def test_health_fields_come_from_their_owning_plugins(start_server, tmp_path):
    """``upgrade_capable`` is the maintenance plugin's and ``plugins_dir_configured`` the folder
    plugins' (hook ``health_fields``): with a plugins dir the field says so; with the owner
    disabled the host still answers the interface's field, False."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    script = tmp_path / "upgrade.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o700)
    env = {"SVC_DISPLAY_PLUGINS_DIR": str(plugins), "SVC_DISPLAY_UPGRADE_SCRIPT": str(script),
           "SVC_DISPLAY_UPGRADE_ANY_ARCH": "1"}
    body = start_server(env).get("/v1/health").json()
    assert body["plugins_dir_configured"] is True and body["upgrade_capable"] is True
    body = start_server({**env, "SVC_DISPLAY_DISABLE_PLUGINS": "folder_plugins,maintenance"}).get("/v1/health").json()
    assert HEALTH_FIELDS <= set(body)
    assert body["plugins_dir_configured"] is False and body["upgrade_capable"] is False
