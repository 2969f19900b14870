"""The fleet at scale (issue 33): one real ``svc-controller serve`` (HTTPS) and ``--displays`` fake
displays in this process (tests/controller/fakedisplay.py: a real display's shapes, each on its own
loopback address 127.0.x.y and port), ``--hung`` of them accepting and never answering.

Measured twice in the same run, with an empty fleet (the baseline) and with the fleet registered
and polled (every ``--poll`` s):

- ``GET /bff/v1/displays`` latency over ``--requests`` sequential requests (p50, p99);
- the Displays page in headless Chromium (Playwright): from navigation until every card is drawn;
- the controller's RSS, and its CPU over ``--idle`` seconds of polling with nobody asking;

with ``--sync-groups N``, once more after every answering display joined one of N sync groups
(CONTRACT "Displays in step"; one display's program differs), its ratio to the fleet without;
then a backup burst: ``--targets`` backup targets all due at once (the clock moved a week on),
each job held ``--hold`` s by the display; the peak of pulls at once and the time until each has
its ``lastRun``. Prints each figure, the ratio to the baseline, and the issue's goals.

    .venv/bin/python benchmarks/fleet.py [--displays 200] [--hung 3] [--poll 15] [--idle 30] \\
        [--requests 200] [--targets 200] [--hold 0.2] [--sync-groups 0]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.controllers import ControllerProcess  # noqa: E402
from tests.controller.fakedisplay import FakeDisplay  # noqa: E402

WEEK_MS = 7 * 24 * 3600 * 1000
CHROMIUM = os.environ.get("SVC_TEST_CHROMIUM", "/usr/bin/chromium")


def loopback(n: int) -> str:
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


def list_latency(ctl: ControllerProcess, count: int) -> tuple[float, float]:
    session = requests.Session()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        r = session.get(ctl.url + "/bff/v1/displays", verify=ctl.verify, timeout=60)
        assert r.status_code == 200, r.text
        times.append(time.perf_counter() - started)
    session.close()
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def page_load(ctl: ControllerProcess, expected: int) -> float:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        context = browser.new_context(ignore_https_errors=True, base_url=ctl.url)
        page = context.new_page()
        page.goto("/#/displays")  # once: the static files cached, as for a person coming back
        page.locator("main .view[aria-busy='false']").wait_for(timeout=120_000)
        samples = []
        for _ in range(3):
            started = time.perf_counter()
            page.reload()
            page.locator("main .view[aria-busy='false']").wait_for(timeout=120_000)
            if expected:
                page.wait_for_function(f"document.querySelectorAll('li.display .badge[data-state]').length >= {expected}",
                                       timeout=120_000)
            samples.append(time.perf_counter() - started)
        browser.close()
    return statistics.median(samples)


def idle(ctl: ControllerProcess, seconds: float) -> tuple[float, float]:
    """(RSS MiB, CPU % of one core over ``seconds``), the controller and its children."""
    process = psutil.Process(ctl.process.pid)

    def cpu() -> float:
        total = process.cpu_times()
        return total.user + total.system

    before, started = cpu(), time.monotonic()
    time.sleep(seconds)
    used, elapsed = cpu() - before, time.monotonic() - started
    return process.memory_info().rss / 2 ** 20, 100 * used / elapsed


def measure(ctl: ControllerProcess, args: argparse.Namespace, expected: int) -> dict[str, float]:
    p50, p99 = list_latency(ctl, args.requests)
    load = page_load(ctl, expected)
    rss, cpu = idle(ctl, args.idle)
    return {"list p50 ms": p50 * 1000, "list p99 ms": p99 * 1000, "page load ms": load * 1000, "RSS MiB": rss,
            "idle CPU %": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--displays", type=int, default=200)
    parser.add_argument("--hung", type=int, default=3)
    parser.add_argument("--poll", type=int, default=15)
    parser.add_argument("--idle", type=float, default=30)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--hold", type=float, default=0.2)
    parser.add_argument("--sync-groups", type=int, default=0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fleet-bench-"))
    ctl = ControllerProcess(root / "data", {"SVC_CONTROLLER_FLEET_POLL_SECONDS": str(args.poll),
                                            "SVC_CONTROLLER_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "2000",
                                            "SVC_CONTROLLER_LOG_LEVEL": "WARNING",
                                            "SVC_CONTROLLER_SCHEDULER_TICK_MS": "500"})
    fakes: list[FakeDisplay] = []
    try:
        ctl.start()
        baseline = measure(ctl, args, 0)
        for n in range(args.displays):
            fake = FakeDisplay(host=loopback(n), key="svc_bench_key").start()
            if n < args.hung:
                fake.mode = "hang"
            fakes.append(fake)
            r = ctl.request("PUT", f"/bff/v1/displays/d{n:04d}", json={
                "name": f"Display {n}", "baseUrl": fake.url, "apiKey": "svc_bench_key", "group": f"g{n % 10}"})
            assert r.status_code == 201, r.text
        started = time.monotonic()
        while True:
            states = [i["status"]["state"] for i in ctl.get("/bff/v1/displays").json()["items"]]
            if "unknown" not in states:
                break
            time.sleep(0.5)
        first_round = time.monotonic() - started
        counts = {s: states.count(s) for s in sorted(set(states))}
        fleet = measure(ctl, args, args.displays)
        in_step = None
        if args.sync_groups:
            for n, fake in enumerate(fakes):
                fake.screen = {**fake.screen, "sync": {"group": f"s{n % args.sync_groups}", "cycle_ms": 60_000,
                                                       "program_hash": ("b" if n == args.hung else "a") * 64}}
            members = args.displays - args.hung
            while True:
                groups = ctl.get("/bff/v1/displays").json()["syncGroups"]
                if sum(len(g["displayIds"]) for g in groups) == members and any(g["programsDiffer"] for g in groups):
                    break
                time.sleep(0.5)
            in_step = measure(ctl, args, args.displays)
        # the backup burst: every target due at once
        burst_display = FakeDisplay(host="127.0.0.1")
        burst_display.job_hold_s = args.hold
        burst_display.start()
        fakes.append(burst_display)
        ids = []
        for n in range(args.targets):
            r = ctl.request("PUT", "/bff/v1/backup-targets", json={
                "displayId": f"b{n}", "baseUrl": f"{burst_display.url}/b{n}", "apiKey": "svc_bench_key",
                "cronExpr": "0 3 * * 1"})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        rss_before = psutil.Process(ctl.process.pid).memory_info().rss / 2 ** 20
        started = time.monotonic()
        ctl.advance_clock(WEEK_MS)
        peak_rss = rss_before
        while True:
            peak_rss = max(peak_rss, psutil.Process(ctl.process.pid).memory_info().rss / 2 ** 20)
            items = ctl.get("/bff/v1/backup-targets").json()["items"]
            if all(i["lastRun"] for i in items):
                break
            time.sleep(0.2)
        burst_s = time.monotonic() - started
    finally:
        ctl.stop()
        for fake in fakes:
            fake.stop()
    print(f"fleet: {args.displays} displays ({args.hung} hung), polled every {args.poll} s; "
          f"first round stored in {first_round:.1f} s: {counts}")
    print(f"{'':>14} {'empty fleet':>12} {'fleet':>10} {'ratio':>7}   goal")
    goals = {"list p99 ms": "< 100", "page load ms": "< 1000", "RSS MiB": "< 150", "idle CPU %": "< 1"}
    for key in baseline:
        ratio = fleet[key] / baseline[key] if baseline[key] else float("nan")
        print(f"{key:>14} {baseline[key]:>12.1f} {fleet[key]:>10.1f} {ratio:>7.2f}   {goals.get(key, '')}")
    if in_step is not None:
        print(f"the same fleet in {args.sync_groups} sync groups (one program differing) against the fleet without:")
        for key in fleet:
            ratio = in_step[key] / fleet[key] if fleet[key] else float("nan")
            print(f"{key:>14} {fleet[key]:>12.1f} {in_step[key]:>10.1f} {ratio:>7.2f}")
    print(f"backup burst: {args.targets} targets due at once, each job held {args.hold} s: all done in {burst_s:.1f} s, "
          f"at most {burst_display.jobs_peak} at once (bound 4), one job per target: "
          f"{sorted(set(burst_display.jobs.values()))}, RSS {rss_before:.0f} -> peak {peak_rss:.0f} MiB")


if __name__ == "__main__":
    main()
