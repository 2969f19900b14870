"""``svc-controller --version`` and ``serve --help`` listing every variable (neither existed)."""
import re
import subprocess
import sys
from pathlib import Path

from svc_controller import config


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
    listed = set(re.findall(r"^  (SVC_CONTROLLER_[A-Z_]+) \[", helped.stdout, re.M))
    assert read and listed == read, read ^ listed
    assert "  SVC_CONTROLLER_PORT [5199]\n" in helped.stdout and "SVC_CONTROLLER_TLS [1]" in helped.stdout
    assert "SVC_CONTROLLER_TIMEZONE [the machine's zone]" in helped.stdout
