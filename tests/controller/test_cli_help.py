"""``svc-controller --version`` and ``serve --help`` listing every variable (neither existed)."""
import re
import subprocess
import sys
from pathlib import Path

from svc_controller import config
from svc_host.config import connection_environment


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "svc_controller", *args], capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin"})


def test_version_and_serve_help_name_every_variable_with_its_default():
    from svc_host import __version__

    version = _cli("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"svc-controller {__version__}"
    helped = _cli("serve", "--help")
    assert helped.returncode == 0, helped.stderr
    read = set(re.findall(r'"(SVC_CONTROLLER_[A-Z_]+)"', Path(config.__file__).read_text()))
    read |= {name for name, _field, _summary in connection_environment("SVC_CONTROLLER_")}  # read by prefix
    listed = set(re.findall(r"^  (SVC_CONTROLLER_[A-Z_]+) \[", helped.stdout, re.M))
    assert read and listed == read, read ^ listed
    assert "  SVC_CONTROLLER_PORT [5199]\n" in helped.stdout and "SVC_CONTROLLER_TLS [1]" in helped.stdout
    assert "SVC_CONTROLLER_TIMEZONE [the machine's zone]" in helped.stdout


def test_a_port_in_use_or_a_misspelt_variable_is_said_in_one_line_before_anything_is_made(tmp_path):
    """Before: uvicorn's raw ``[Errno 98]`` after a certificate was made, and a misspelt variable
    silently ignored."""
    import socket

    data = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "svc_controller", "serve"], capture_output=True, text=True,
                             timeout=60, env={"PATH": "/usr/bin:/bin", "SVC_CONTROLLER_DATA_DIR": str(data),
                                              "SVC_CONTROLLER_PORT": str(port), "SVC_CONTROLLER_PROT": "1",
                                              "SVC_CONTROLLER_HTTP_MAX_CONNECTIONS": "10",
                                              "SVC_DISPLAY_HTTP_PORT": "1", "SVC_TEST_PG_URL": "x"})
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].endswith(" WARNING svc_controller: SVC_CONTROLLER_PROT is not a variable svc-controller "
                             "reads: ignored; did you mean SVC_CONTROLLER_PORT?"), lines
    assert lines[1] == (f"svc-controller: port {port} on 127.0.0.1 is in use by another program (another "
                        "instance running?): stop that program, or set SVC_CONTROLLER_PORT to a free port")
    assert not data.exists()
