"""The CLI and the README's `make run`."""
import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from svc_host.tls import first_non_loopback_ipv4, local_ipv4_addresses
from tests import REPO


def test_migrate_prints_the_schema_version(env, backend):
    out = subprocess.run([sys.executable, "-m", "svc_host", "migrate"], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=60)
    assert out.returncode == 0, out.stderr
    version = json.loads(out.stdout)["schema_version"]
    assert isinstance(version, int)
    if backend == "postgres":
        assert version == 1


def test_first_non_loopback_ipv4_is_a_local_address():
    address = first_non_loopback_ipv4()
    if address is None:  # a machine with loopback only
        assert all(ipaddress.ip_address(a).is_loopback for a in local_ipv4_addresses())
    else:
        assert not ipaddress.ip_address(address).is_loopback and address in local_ipv4_addresses()


def test_make_run_serves_health_over_https(tmp_path):
    """``make run`` serves health over HTTPS. On port 0 (the OS chooses; the server names it in
    ``<data dir>/http-port``), as the kit's servers do: a guessed free port could be taken by
    another process before the server binds it."""
    data = tmp_path / "data"
    health = None
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(data), "SVC_DISPLAY_HTTP_PORT": "0",
           "SVC_DISPLAY_HEADLESS": "1", "MAKEFLAGS": ""}
    log = open(tmp_path / "make-run.log", "wb")
    process = subprocess.Popen(["make", "-s", "run"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and health is None and process.poll() is None:
            try:
                port = int((data / "http-port").read_text())
                health = requests.get(f"https://127.0.0.1:{port}/v1/health", timeout=2,
                                      verify=str(data / "tls" / "display-cert.pem"),
                                      headers={"Connection": "close"})
            except (requests.ConnectionError, requests.Timeout, OSError, ValueError):
                time.sleep(0.2)
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:  # make and its server exited already
            pass
        process.wait(30)
        log.close()
    assert health is not None and health.status_code == 200, (tmp_path / "make-run.log").read_text()
    assert health.json()["status"] == "ok"
    assert (data / "svc_display.sqlite3").exists()


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "svc_host", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


def test_version(env):
    from svc_host import __version__

    out = _cli("--version", env=env)
    assert out.returncode == 0 and out.stdout.strip() == f"svc-display {__version__}"


def test_serve_help_lists_every_variable_with_its_default(env):
    from svc_host.config import ENVIRONMENT, Settings, declared_settings
    from svc_host.plugins import load_plugins

    out = _cli("serve", "--help", env=env)
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    for name, _field, _summary in ENVIRONMENT:
        assert name in out.stdout.partition("\n plugin ")[0], name  # the host's first
    for plugin, items in declared_settings(load_plugins()):  # then each plugin's, under its name
        section = out.stdout.partition(f"\n plugin {plugin}:\n")[2].partition("\n plugin ")[0]
        assert all(item.name in section for item in items), plugin
    assert "SVC_DISPLAY_UPGRADE_TIMEOUT_SECONDS [1800]" in out.stdout.partition("\n plugin maintenance:")[2]
    assert f"SVC_DISPLAY_HTTP_PORT [{Settings.http_port}]" in text
    assert f"SVC_DISPLAY_HTTP_BODY_TIMEOUT_SECONDS [{Settings.http_body_timeout_seconds}]" in text
    assert "SVC_DISPLAY_HEADLESS [0]" in text and "SVC_DISPLAY_LOG_LEVEL [INFO]" in text


def test_the_environment_table_names_every_variable_and_its_real_default(tmp_path):
    import re

    from svc_host import config

    source = Path(config.__file__).read_text()
    read = set(re.findall(r'_(?:text|bool|int|path|url)\(env, "([A-Z_]+)"', source))
    read |= {"SVC_DISPLAY_HTTP_CORS_ORIGINS", "SVC_DISPLAY_DISABLE_PLUGINS"}
    table = {name for name, _field, _summary in config.ENVIRONMENT}
    assert read - set(config.DEPRECATED_KEY_VARIABLES) <= table, read - table
    parsed = config.load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path)})
    for _name, field, _summary in config.ENVIRONMENT:
        if field != "data_dir":
            assert getattr(parsed, field) == getattr(config.Settings, field), field


def test_keys_create_refuses_a_data_dir_without_a_database(tmp_path):
    data = tmp_path / "elsewhere"
    out = _cli("keys", "create", "--identifier", "laptop", env={"SVC_DISPLAY_DATA_DIR": str(data),
                                                                   "SVC_DISPLAY_HEADLESS": "1"})
    assert out.returncode == 2 and out.stdout == ""
    assert str(data) in out.stderr and "no database" in out.stderr
    assert not (data / "svc_display.sqlite3").exists()


FAKE_PYTHON = """#!/bin/sh
# A stand-in interpreter: logs every call; `-m venv DIR` makes DIR/bin/python (itself).
echo "$0 $*" >> "{log}"
case "$*" in
  *"sys.version_info"*) echo "{ok}"; exit 0;;
  "-V") echo "Python {version}"; exit 0;;
  "-m venv "*) mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && chmod +x "$3/bin/python"; exit 0;;
esac
exit 0
"""


def _fake_python(tmp_path: Path, version: str = "3.12.1") -> tuple[Path, Path]:
    log = tmp_path / "calls.log"
    fake = tmp_path / "fakepython"
    fake.write_text(FAKE_PYTHON.format(log=log, ok=int(version >= "3.11"), version=version))
    fake.chmod(0o755)
    return fake, log


def _make(tmp_path: Path, fake: Path, *targets: str) -> subprocess.CompletedProcess:
    venv = tmp_path / "venv"
    return subprocess.run(["make", "--no-print-directory", f"VENV={venv}", f"PYTHON={fake}", *targets], cwd=REPO,
                          capture_output=True, text=True, timeout=60, env={**os.environ, "MAKEFLAGS": ""})


def test_make_refuses_an_old_python_with_one_line(tmp_path):
    fake, log = _fake_python(tmp_path, "3.10.4")
    out = _make(tmp_path, fake, str(tmp_path / "venv" / ".runtime-installed"))
    assert out.returncode != 0
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "3.11" in lines[0] and "3.10.4" in lines[0], lines
    assert not (tmp_path / "venv").exists()


def test_make_rebuilds_a_half_built_venv_and_installs_runtime_then_test_deps(tmp_path):
    fake, log = _fake_python(tmp_path)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "leftover-of-an-interrupted-build").write_text("x")  # no .created marker: half-built
    out = _make(tmp_path, fake, str(venv / ".runtime-installed"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert not (venv / "leftover-of-an-interrupted-build").exists()
    calls = log.read_text().splitlines()
    installs = [c for c in calls if "pip install" in c and "-e" in c]
    assert len(installs) == 1 and installs[0].rstrip().endswith("-e .") and " -q" not in installs[0], calls
    out = _make(tmp_path, fake, str(venv / ".test-installed"))
    assert out.returncode == 0, out.stdout + out.stderr
    installs = [c for c in log.read_text().splitlines() if "pip install" in c and "-e" in c]
    assert len(installs) == 2 and installs[1].rstrip().endswith("-e .[dev]"), installs
    assert not any("-m venv" in c for c in log.read_text().splitlines()[len(calls):])  # the complete venv is kept


def test_a_port_in_use_stops_the_start_with_one_line_before_anything_is_made(tmp_path):
    """Before: uvicorn's raw ``[Errno 98]`` after a full start, a certificate generated first."""
    import socket

    data = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "svc_host", "serve"], capture_output=True, text=True, timeout=60,
                             env={"PATH": "/usr/bin:/bin", "SVC_DISPLAY_DATA_DIR": str(data),
                                  "SVC_DISPLAY_HEADLESS": "1", "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1",
                                  "SVC_DISPLAY_HTTP_PORT": str(port)})
    assert out.returncode == 3
    assert out.stderr.splitlines() == [
        f"svc-display: port {port} on 127.0.0.1 is in use by another program (another instance running?): "
        "stop that program, or set SVC_DISPLAY_HTTP_PORT to a free port"]
    assert not (data / "tls").exists() and not (data / "svc_display.sqlite3").exists()


def test_a_misspelt_variable_gets_one_warning_naming_the_closest_known_one(tmp_path):
    """Before: SVC_DISPLAY_HTTP_PROT was silently ignored. Known variables, the test kit's and the
    other program's are not warned about; a plugin's declared variable is known."""
    out = _cli("migrate", env={"SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_DISPLAY_HTTP_PROT": "9000",
                               "SVC_DISPLAY_HTTP_PORT": "9001", "SVC_DISPLAY_LIVE_PREVIEW_FPS": "2",
                               "SVC_DISPLAY_WINDOW_SIZE": "800x600", "SVC_DISPLAY_FROBNICATE": "1",
                               "SVC_TEST_BACKENDS": "sqlite", "SVC_REQUIRE_PG": "1", "SVC_CONTROLLER_PORT": "1"})
    assert out.returncode == 0, out.stderr
    warnings = [line.partition(" svc_host: ")[2] for line in out.stderr.splitlines() if " WARNING " in line]
    assert warnings == ["SVC_DISPLAY_FROBNICATE is not a variable svc-display reads: ignored",
                        "SVC_DISPLAY_HTTP_PROT is not a variable svc-display reads: ignored; "
                        "did you mean SVC_DISPLAY_HTTP_PORT?"], out.stderr


def test_serve_help_and_the_docs_list_the_same_variables_and_every_one_read(env):
    """``serve --help`` and the docs list every variable read, the canvas's SVC_DISPLAY_WINDOW_SIZE,
    _MAX_FPS and _MULTISAMPLES among them (read once, by svc_host/config.py: the runtime takes them
    from the host's settings)."""
    import re

    out = _cli("serve", "--help", env=env)
    assert out.returncode == 0, out.stderr
    helped = set(re.findall(r"^  (SVC_[A-Z0-9_]+) \[", out.stdout, re.M))
    docs = (REPO / "docs" / "configuration.md").read_text()
    table = docs.partition("<!-- environment: generated")[2].partition("<!-- /environment -->")[0]
    documented = set(re.findall(r"^\| `(SVC_[A-Z0-9_]+)` \|", table, re.M))
    assert helped == documented, helped ^ documented
    read = set()
    for folder in ("svc_host", "builtin_plugins", "hookspecs"):
        for path in (REPO / folder).rglob("*.py"):
            read |= set(re.findall(r"""environ(?:\.get\(|\[)\s*["'](SVC_DISPLAY_[A-Z0-9_]+)["']""", path.read_text()))
    from svc_host.config import DEPRECATED_KEY_VARIABLES, SIDECAR_VARIABLES

    assert {"SVC_DISPLAY_WINDOW_SIZE", "SVC_DISPLAY_MAX_FPS", "SVC_DISPLAY_MULTISAMPLES"} <= helped
    canvas = (REPO / "svc_host" / "display" / "runtime.py").read_text()
    assert not re.findall(r"""environ(?:\.get\(|\[)\s*["'](SVC_DISPLAY_[A-Z0-9_]+)["']""", canvas), \
        "the runtime takes the canvas's settings from the host's (svc_host/config.py reads them)"
    assert read - set(DEPRECATED_KEY_VARIABLES) - set(SIDECAR_VARIABLES) <= helped, read - helped


def test_a_relative_data_dir_is_the_working_directorys(tmp_path):
    """``SVC_DISPLAY_DATA_DIR=relative-data`` names a folder under the directory the command runs in,
    as a shell user means it (SQLite through Pony would otherwise resolve it from Pony's module)."""
    (tmp_path / "here").mkdir()
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": "relative-data", "SVC_DISPLAY_HEADLESS": "1"}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-m", "svc_host", "migrate"], capture_output=True, text=True,
                          env=env, timeout=60, cwd=tmp_path / "here")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "here" / "relative-data" / "svc_display.sqlite3").exists()
    listed = subprocess.run([sys.executable, "-m", "svc_host", "keys", "list"], capture_output=True, text=True,
                            env=env, timeout=60, cwd=tmp_path / "here")
    assert listed.returncode == 0, listed.stderr[-2000:]
