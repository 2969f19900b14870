"""The kit's zygote (svc_display/testing/forkserver.py): a forked command behaves as the same
command started fresh, and what does not fit runs as a plain subprocess."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from svc_display.testing import ServerProcess, forkserver


@pytest.fixture(autouse=True)
def _zygote_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_TEST_FORKSERVER", "1")  # these tests are about it, whatever the run says


def test_a_forked_command_has_its_own_environment_directory_streams_and_exit_status(tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    env = {**os.environ, "SVC_DISPLAY_DATA_DIR": "relative-data", "SVC_DISPLAY_HEADLESS": "1"}
    command = [sys.executable, "-m", "svc_host", "keys", "list"]
    forked = forkserver.run(command, env=env, cwd=tmp_path / "here", timeout=60)
    fresh = subprocess.run(command, env={**env, "SVC_TEST_FORKSERVER": "0"}, cwd=tmp_path / "here",
                           capture_output=True, text=True, timeout=60)
    assert forked.returncode == fresh.returncode == 2, forked.stderr  # no database there yet
    assert forked.stderr == fresh.stderr and "relative-data" in forked.stderr and forked.stdout == fresh.stdout == ""
    zygote = forkserver._zygote_for(command, env)
    assert zygote is not None and zygote.refused is None and zygote.process.pid != os.getpid()


def test_a_forked_server_is_a_process_of_its_own_that_a_signal_ends(tmp_path: Path) -> None:
    server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_HEADLESS": "1"}).start()
    try:
        assert isinstance(server.process, forkserver.ForkedProcess)
        zygote = forkserver._zygote_for([sys.executable, "-m", "svc_host"], server.env)
        stat = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(stat[1]) == zygote.process.pid != server.process.pid  # its parent is the zygote
        assert os.readlink(f"/proc/{server.process.pid}/cwd") == str(tmp_path)  # the kit's cwd: data dir's parent
        assert (tmp_path / "data" / ServerProcess.PORT_FILE).exists()  # its own SVC_DISPLAY_DATA_DIR
        assert server.process.poll() is None
        weak = server.cli("users", "create", "--username", "bob", input="short\n")  # stdin: the passphrase
        strong = server.cli("users", "create", "--username", "ada", input="a long passphrase\n")
        assert weak.returncode != 0 and strong.returncode == 0, (weak.stderr, strong.stderr)
        server.process.send_signal(signal.SIGKILL)
        assert server.process.wait(30) == -signal.SIGKILL
    finally:
        server.stop()
    assert "listening on" in server.log


def test_a_command_that_would_import_other_code_runs_as_a_plain_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    process = forkserver.popen([sys.executable, "-m", "svc_host", "--version"], env=env, cwd=tmp_path,
                               stdout=subprocess.DEVNULL)
    assert isinstance(process, subprocess.Popen) and process.wait(60) == 0
    other = forkserver.popen([sys.executable, "-c", "pass"], cwd=tmp_path)
    assert isinstance(other, subprocess.Popen) and other.wait(60) == 0
    fitting = forkserver.popen([sys.executable, "-m", "svc_host", "--version"], cwd=tmp_path,
                               stdout=subprocess.DEVNULL)
    assert isinstance(fitting, forkserver.ForkedProcess) and fitting.wait(60) == 0
