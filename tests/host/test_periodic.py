"""``svc_host.periodic.Periodic``: a task every few seconds on its own thread, outliving a failed
run, stopped at once (real threads, short periods)."""
import logging
import threading
import time

from svc_host.periodic import Periodic


def test_runs_every_period_survives_a_failed_run_and_stops_at_once(caplog):
    runs = []
    third = threading.Event()

    def task():
        runs.append(threading.current_thread().name)
        if len(runs) == 1:
            raise RuntimeError("a busy database")
        if len(runs) == 3:
            third.set()

    periodic = Periodic("test-ticker", 0.02, task)
    with caplog.at_level(logging.ERROR, logger="svc_host.periodic"):
        periodic.start()
        assert third.wait(10), runs
        started = time.monotonic()
        periodic.stop()
    assert time.monotonic() - started < 1
    assert set(runs) == {"test-ticker"}
    assert "test-ticker: a run failed" in caplog.text and "a busy database" in caplog.text
    count = len(runs)
    time.sleep(0.1)
    assert len(runs) == count  # stopped: no run after stop()


def test_stop_before_start_and_a_long_period_stop_without_waiting():
    Periodic("never-started", 60, lambda: None).stop()
    periodic = Periodic("slow", 60, lambda: None)
    periodic.start()
    started = time.monotonic()
    periodic.stop()
    assert time.monotonic() - started < 1
