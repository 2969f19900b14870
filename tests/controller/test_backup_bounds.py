"""Backup pulls bounded (CONTRACT "The fleet"): at most SVC_CONTROLLER_BACKUP_CONCURRENCY at once,
scheduled and manual together; missed runs make one pull per target; two controllers on one
PostgreSQL database make each scheduled pull exactly once. A fake display on loopback
(tests/controller/fakedisplay.py) counts the backup jobs each target asks for."""
from __future__ import annotations

import shutil
import threading
from contextlib import ExitStack

import pytest

from svc_display.testing import wait_for
from svc_display.testing.databases import throwaway_pg_database
from tests.controllers import ControllerProcess, running
from tests.controller.fakedisplay import FakeDisplay

pytestmark = [pytest.mark.slow, pytest.mark.svc_display_storage]

WEEK_MS = 7 * 24 * 3600 * 1000
KEY = "svc_" + "B0und3dK3y" * 3
BOUND = 2
TARGETS = 60


def make_targets(ctl, fake, count, prefix="t", enabled=True):
    ids = []
    for n in range(count):
        r = ctl.request("PUT", "/bff/v1/backup-targets", json={
            "displayId": f"{prefix}{n}", "baseUrl": f"{fake.url}/{prefix}{n}", "apiKey": KEY, "cronExpr": "0 3 * * 1",
            "enabled": enabled})
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    return ids


def last_runs(ctl, ids):
    return [ctl.get(f"/bff/v1/backup-targets/{i}").json()["lastRun"] for i in ids]


def test_a_burst_of_due_and_manual_pulls_runs_at_most_the_bound_and_missed_runs_pull_once(tmp_path,
                                                                                         module_database_url):
    with ExitStack() as stack:
        env = {"SVC_CONTROLLER_BACKUP_CONCURRENCY": str(BOUND)}
        if module_database_url:
            env["SVC_CONTROLLER_DATABASE_URL"] = stack.enter_context(throwaway_pg_database("svc_c_"))
        ctl = ControllerProcess(tmp_path / "data", env)
        fake = stack.enter_context(FakeDisplay())
        fake.job_hold_s = 0.4  # each pull holds its slot a moment: unbounded pulls would pile up
        stack.enter_context(running(ctl))
        ctl.start()
        scheduled = make_targets(ctl, fake, 8)
        manual = make_targets(ctl, fake, 3, prefix="m", enabled=False)  # pulled by hand only
        # three weekly runs missed (as over a controller's downtime), all due at the next tick
        ctl.advance_clock(3 * WEEK_MS + 3600_000)
        answers = []
        pullers = [threading.Thread(target=lambda i=i: answers.append(
            ctl.request("POST", f"/bff/v1/backup-targets/{i}/pull-now").status_code)) for i in manual]
        for puller in pullers:
            puller.start()
        for puller in pullers:
            puller.join(120)
        wait_for(lambda: all(last_runs(ctl, scheduled)), timeout=120, what="every scheduled pull")
        assert answers == [502] * 3  # the fake refuses the job: recorded, reported
        assert all(run["status"] == "failed" and run["source"] == "scheduled" for run in last_runs(ctl, scheduled))
        assert 1 <= fake.jobs_peak <= BOUND, fake.jobs_peak
        # one pull per target for the three missed runs (the manual ones: one each, asked once)
        assert fake.jobs == {**{f"/t{n}": 1 for n in range(8)}, **{f"/m{n}": 1 for n in range(3)}}, fake.jobs


def test_two_controllers_on_one_database_make_each_scheduled_pull_once(tmp_path, module_database_url):
    if not module_database_url:
        pytest.skip("several controllers share a PostgreSQL database (SQLite: one controller per data dir)")
    with ExitStack() as stack:
        url = stack.enter_context(throwaway_pg_database("svc_c_"))
        clock = tmp_path / "shared-clock"
        env = {"SVC_CONTROLLER_DATABASE_URL": url, "SVC_CONTROLLER_TEST_CLOCK_FILE": str(clock),
               "SVC_CONTROLLER_SCHEDULER_TICK_MS": "50"}
        first = ControllerProcess(tmp_path / "one" / "data", env)
        second = ControllerProcess(tmp_path / "two" / "data", env)
        fake = stack.enter_context(FakeDisplay())
        stack.enter_context(running(first, second))
        first.start()
        # many targets: one claim's transaction lasts long enough for the two schedulers (ticking
        # every 50 ms) to overlap; without the row claim both pulled most of them
        ids = make_targets(first, fake, TARGETS)
        # the controllers share the key that encrypts the stored API keys (docs/controller.md)
        (second.data_dir).mkdir(parents=True)
        shutil.copy2(first.data_dir / "controller-secrets.key", second.data_dir / "controller-secrets.key")
        second.start()
        assert [t["id"] for t in second.get("/bff/v1/backup-targets").json()["items"]] == ids
        for week in (1, 2):
            before = [run and run["finishedAt"] for run in last_runs(first, ids)]
            first.advance_clock(WEEK_MS)  # the one clock file both read
            wait_for(lambda: all(run and run["finishedAt"] != old for run, old in zip(last_runs(first, ids), before)),
                     timeout=120, what=f"week {week}'s pulls")
            wait_for(lambda: sum(fake.jobs.values()) >= TARGETS * week, timeout=60, what="the jobs")
            assert fake.jobs == {f"/t{n}": week for n in range(TARGETS)}, fake.jobs
        # each pull logged by the one controller that made it
        logs = first.log + second.log
        assert logs.count("scheduled pull starts") == 2 * TARGETS
        # and the two never collided: without the row claim both read the same due rows, and the
        # second's whole claim failed on Pony's optimistic check (OptimisticCheckError, logged as
        # "a run failed"); with FOR UPDATE SKIP LOCKED the second skips the rows the first holds
        assert "a run failed" not in logs and "OptimisticCheckError" not in logs
        # every pull decrypted its key: none failed for another reason than the display's 503
        assert all("503" in run["error"] for run in last_runs(first, ids))
