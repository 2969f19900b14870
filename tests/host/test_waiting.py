"""``svc_display.testing.waiting.wait_until_up`` and ``svc_display.testing.server.stop_process``:
how the kit's server fixtures (and the suite's controller and canvas processes) wait for a
process they started and stop it, with real processes."""
import subprocess
import sys

import pytest
import requests

from svc_display.testing.waiting import NotYet, ProcessExited, wait_until_up


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


def test_stop_process_terminates_then_kills_and_gives_the_status():
    from svc_display.testing.server import stop_process

    assert stop_process(None) is None
    polite = start("import time; time.sleep(30)")
    assert stop_process(polite, timeout=10) == -15  # SIGTERM ended it
    assert stop_process(polite) == -15  # already ended: its status again
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, "
                                 "signal.SIG_IGN); print('ready', flush=True); time.sleep(30)"],
                                stdout=subprocess.PIPE, text=True)
    assert stubborn.stdout.readline() == "ready\n"  # SIGTERM is ignored from now on
    assert stop_process(stubborn, timeout=0.5) == -9  # so it is killed
    stubborn.stdout.close()


def test_the_timeout_names_the_last_reason_the_process_was_not_up():
    process = start("import time; time.sleep(30)")

    def healthy() -> bool:
        raise NotYet("health answered 503: starting")
    try:
        with pytest.raises(RuntimeError, match=r"the last: NotYet: health answered 503: starting"):
            wait_until_up(process, healthy, 0.3, "mute", lambda: "", process.kill, interval=0.05)
    finally:
        process.kill()
