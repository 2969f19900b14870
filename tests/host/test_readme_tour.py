"""The README's curl tour, run as written (ports and data dir swapped for the test's), offline."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess

import pytest

from svc_display.testing import free_port
from tests import REPO

pytestmark = pytest.mark.slow


def tour_script() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## A short tour with curl", 1)[1]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return blocks[1]  # the first block starts the server (`make run`): the test starts its own


def json_answers(out: str) -> list:
    """Every JSON value curl printed, in order (they follow each other without separators)."""
    decoder, answers, at = json.JSONDecoder(), [], 0
    while (start := min((i for i in (out.find("{", at), out.find("[", at)) if i >= 0), default=-1)) >= 0:
        try:
            value, at = decoder.raw_decode(out, start)
            answers.append(value)
        except ValueError:
            at = start + 1
    return answers


def test_the_tour_stays_on_this_machine():
    urls = re.findall(r"https?://[^\s'\"]+", tour_script())
    assert urls and all(re.match(r"https?://(localhost|127\.0\.0\.1)[:/]", url) for url in urls), urls


def test_the_readme_tour_works_offline(start_server, env, tmp_path):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    feed_port = free_port()
    script = (tour_script()
              .replace("DATA=~/.local/share/svc-display", f"DATA={env['SVC_DISPLAY_DATA_DIR']}")
              .replace(":8787", f":{server.port}")
              .replace("8000", str(feed_port))
              # run from a folder of the test's own (the tour writes backup.tar.gz), with the
              # checkout's paths made absolute
              .replace(".venv/bin/", f"{REPO / '.venv' / 'bin'}/")
              .replace("--directory examples/", f"--directory {REPO / 'examples'}/"))
    out_path, err_path = tmp_path / "tour.out", tmp_path / "tour.err"
    with open(out_path, "w") as out_file, open(err_path, "w") as err_file:  # files: the feed server keeps pipes open
        process = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, stdout=out_file, stderr=err_file, text=True,
                                   env={**server.env, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}"},
                                   start_new_session=True)
        try:
            process.wait(timeout=120)
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)  # the feed's http.server
            except ProcessLookupError:
                pass
    out, err = out_path.read_text(), err_path.read_text()
    assert process.returncode == 0, err
    assert '"status": "ok"' in out or '"status":"ok"' in out, out[:2000]
    assert "City budget approved: 3 < 5 new parks" in out, out[-3000:]  # collected from examples/feeds
    assert '"code": "not_found"' in out or '"code":"not_found"' in out
    answers = json_answers(out)
    # the overlay a newcomer writes (no dates; a 400 before) is accepted, and shows all year
    overlay = next(a for a in answers if isinstance(a, dict) and a.get("id") == "hello")
    assert (overlay["start_month"], overlay["start_day"], overlay["end_month"], overlay["end_day"]) == (1, 1, 12, 31)
    # the alert is raised, then listed
    raised = next(a for a in answers if isinstance(a, dict) and a.get("title") == "Fire drill at 3 pm")
    listed = next(a for a in answers if isinstance(a, dict) and isinstance(a.get("items"), list)
                  and any(item.get("id") == raised["id"] for item in a["items"]))
    assert raised["severity"] == "warning" and listed
    assert "Traceback" not in server.log
    assert (tmp_path / "backup.tar.gz").stat().st_size > 0 and not (REPO / "backup.tar.gz").exists()
    assert server.process.wait(timeout=60) == 75  # the restore: a supervisor (make run) starts it again
