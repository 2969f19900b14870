"""A bounded property-based run of every operation in /v1/openapi.json against the real server.

schemathesis generates valid and invalid requests for each documented operation (as an
admin, the widest caller) and checks: no 5xx, status codes and content types that the
document declares, and response bodies that conform to their schemas. It grows with every
route a plugin adds. ``make test`` runs the examples and fuzzing phases, ``make test-full`` the
coverage phase, ``make fuzz`` all three at large size. Bounded by examples per operation
(``--max-time`` would make the fuzzing phase repeat until the budget is spent, so the budget is
only a hard timeout).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
MAX_EXAMPLES = os.environ.get("SVC_FUZZ_MAX_EXAMPLES", "15")
MAX_SECONDS = os.environ.get("SVC_FUZZ_MAX_SECONDS", "240")
# schemathesis's phases. The coverage phase (boundary and just-out-of-bounds values of every
# schema: about 5,900 of the 7,900 cases and half the CPU of all three) runs in `make fuzz` and in
# `make test-full` (CI, after `make test`), not in `make test`.
PHASES = os.environ.get("SVC_FUZZ_PHASES", "examples,fuzzing")
# `make fuzz` (the large run, figures in docs/reliability.md) sets a floor on generated cases.
MIN_CASES = int(os.environ.get("SVC_FUZZ_MIN_CASES", "0"))


# Headless hosts answer these with their documented 503s (navigation_unavailable,
# live_preview_unavailable), which the server-error check counts: the main run leaves them out,
# the canvas run below covers them.
CANVAS_PATHS = ("/v1/display/navigation", "/v1/display/live-preview/session")
# The operations that end or replace an adopted client's key: a generated adoption of the
# identifier "fuzzer" (schemathesis reuses values it has seen in responses) rotated the fuzzer's
# own admin key to an operator's, and every later request was tested only as far as the 401
# (seen on 2026-11-27). Fuzzed last, with a key of their own.
KEY_CHANGERS = ("POST /v1/adoption/clients", "DELETE /v1/adoption/clients/{id}")


def _each(option: str, values: tuple[str, ...]) -> list[str]:
    """``option`` before each of ``values`` (schemathesis repeats a filter option per value)."""
    return [arg for value in values for arg in (option, value)]


def run_schemathesis(server, key: str, report_dir: Path, paths: list[str]) -> tuple[int, int, int]:
    """schemathesis against ``server``'s document (``paths``: ``--exclude-path``/``--include-path``
    arguments); asserts a clean run and returns (operations selected, documented, cases generated)."""
    schemathesis = Path(sys.executable).with_name("schemathesis")
    out = subprocess.run(
        [str(schemathesis), "run", server.url + "/v1/openapi.json",
         "--checks", CHECKS,
         "--header", f"Authorization: Bearer {key}",
         *(["--tls-verify", server.verify] if server.tls else []),
         "--max-examples", MAX_EXAMPLES,
         "--phases", PHASES,
         "--seed", "20261122",
         "--request-timeout", "20",
         # one worker: hypothesis reads lambdas' source with ast.parse, and two threads doing that at
         # once trip CPython 3.11's AST recursion-depth check ("AST constructor recursion depth
         # mismatch", python/cpython#106905), which schemathesis reports as a Runtime Error
         "--workers", "1",
         "--no-color",
         *paths,
         "--report-dir", str(report_dir)],
        capture_output=True, text=True, timeout=int(MAX_SECONDS) * 3 + 120,
    )
    # The failures and errors first (a long WARNINGS section would push them out), then the tail.
    found = [out.stdout[i:i + 8000] for i in (out.stdout.find(h) for h in (" FAILURES ", " ERRORS ")) if i >= 0]
    report = "\n".join(found) + out.stdout[-6000:] + out.stderr[-3000:]
    assert out.returncode == 0, report
    selected = re.search(r"Selected: (\d+)/(\d+)", out.stdout)
    tested = re.search(r"Tested: (\d+)", out.stdout)
    cases = re.search(r"(\d+) generated, (\d+) passed", out.stdout)
    assert selected and tested and cases, report
    print(f"\nfuzz: {tested.group(1)} operations tested of {selected.group(2)} documented "
          f"({selected.group(1)} selected); {cases.group(1)} cases generated, {cases.group(2)} passed")
    assert tested.group(1) == selected.group(1), report  # every selected operation was exercised
    assert "No issues found" in out.stdout or " passed" in out.stdout, report
    assert "Traceback" not in server.log, server.log[-5000:]
    return int(selected.group(1)), int(selected.group(2)), int(cases.group(1))


def test_every_operation_survives_generated_requests(start_server, tmp_path):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    excluded = _each("--exclude-path", CANVAS_PATHS)
    key = server.key("admin", "fuzzer")
    _selected, _documented, cases = run_schemathesis(
        server, key, tmp_path / "report", [*excluded, *_each("--exclude-name", KEY_CHANGERS)])
    # the fuzzer's own key is still an admin's: every operation was exercised past authentication
    # to the end of the run
    session = server.get("/v1/adoption/session", key=key)
    assert session.status_code == 200 and session.json()["role"] == "admin", session.text
    # last, the operations that change keys, with a key of their own (they may end that one)
    selected, _documented, more = run_schemathesis(
        server, server.key("admin", "fuzzer-keys"), tmp_path / "report-keys",
        _each("--include-name", KEY_CHANGERS))
    assert selected == len(KEY_CHANGERS)
    assert cases + more >= MIN_CASES


def test_the_canvas_operations_survive_generated_requests(tmp_path):
    """Navigation and the live-preview session against ``svc-display serve`` with its canvas
    offscreen (what they need to answer 2xx). In ``make fuzz`` only: starting Kivy costs
    seconds that ``make test`` does not spend (tests/display covers both operations there)."""
    if not MIN_CASES:
        pytest.skip("make fuzz only (SVC_FUZZ_MIN_CASES set): an offscreen canvas start")
    from svc_display.testing import ServerProcess
    from tests.display.canvas import canvas_env

    server = ServerProcess(canvas_env(tmp_path / "data", SVC_DISPLAY_ADOPTION_RATE_PER_MIN="0"))
    server.start(timeout=90)
    try:
        included = _each("--include-path", CANVAS_PATHS)
        selected, _documented, cases = run_schemathesis(server, server.key("admin", "fuzzer"),
                                                        tmp_path / "report", included)
        assert selected == len(CANVAS_PATHS) and cases > 0
    finally:
        server.stop()
