"""``svc-display service unit``: the systemd unit of the display, the source of the example."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from svc_host.service_unit import EXAMPLE_EXEC
from tests import REPO


def unit(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "svc_host", "service", "unit", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "SVC_DISPLAY_HEADLESS": "1"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_example_unit_is_the_command_s_output():
    assert (REPO / "examples" / "systemd" / "svc-display.service").read_text() == unit("--exec", EXAMPLE_EXEC)


@pytest.mark.parametrize("session", [False, True])
def test_the_unit_restarts_a_frozen_or_restored_display(session):
    text = unit(*(["--session"] if session else []))
    lines = text.splitlines()
    for line in ("Type=notify", "WatchdogSec=30", "Restart=always", "SuccessExitStatus=75", "NotifyAccess=main"):
        assert line in lines
    executable = next(line for line in lines if line.startswith("ExecStart="))
    assert executable.endswith(" serve") and Path(executable[len("ExecStart="):-len(" serve")]).exists()
    assert ("User=svc-display" in lines) is not session


@pytest.mark.parametrize("session", [False, True])
def test_systemd_analyze_verifies_the_unit(tmp_path, session):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed: the unit is not verified here")
    import getpass

    path = tmp_path / "svc-display.service"
    path.write_text(unit("--session") if session else unit("--user", getpass.getuser()))
    done = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
