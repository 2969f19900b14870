"""``svc_display.testing.waiting.wait_until_up``: how the kit's server fixtures (and the suite's
controller and canvas processes) wait for a process they started, with real processes."""
import subprocess
import sys

import pytest
import requests

from svc_display.testing.waiting import ProcessExited, wait_until_up


def start(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code])


def test_returns_once_healthy_and_a_refused_connection_is_not_yet():
    process = start("import time; time.sleep(30)")
    answers = iter([requests.ConnectionError("refused"), False, True])

    def healthy():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    try:
        wait_until_up(process, healthy, 10, "sleeper", lambda: "", process.kill, interval=0.01)
        assert process.poll() is None
    finally:
        process.kill()
        process.wait()


def test_a_process_that_ends_first_raises_with_its_status_and_log():
    process = start("raise SystemExit(3)")
    process.wait()
    with pytest.raises(ProcessExited, match="quitter exited with 3:\nthe log") as info:
        wait_until_up(process, lambda: True, 10, "quitter", lambda: "the log", process.kill)
    assert info.value.returncode == 3


def test_a_silent_process_is_stopped_after_the_timeout():
    process = start("import time; time.sleep(30)")
    try:
        with pytest.raises(RuntimeError, match="mute did not answer within 0.3s"):
            wait_until_up(process, lambda: False, 0.3, "mute", lambda: "", process.kill, interval=0.05)
        assert process.wait(timeout=10) != 0
    finally:
        process.kill()
        process.wait()
