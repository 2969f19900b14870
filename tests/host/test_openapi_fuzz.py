"""A bounded property-based run of every operation in /v1/openapi.json against the real server.

schemathesis generates valid and invalid requests for each documented operation (as an
admin, the widest caller) and checks: no 5xx, status codes and content types that the
document declares, and response bodies that conform to their schemas. It grows with every
route a plugin adds. Bounded by examples per operation (``--max-time`` would make the
fuzzing phase repeat until the budget is spent, so the budget is only a hard timeout).
"""
import os
import subprocess
import sys
from pathlib import Path

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
MAX_EXAMPLES = os.environ.get("SVC_FUZZ_MAX_EXAMPLES", "30")
MAX_SECONDS = os.environ.get("SVC_FUZZ_MAX_SECONDS", "240")


def test_every_operation_survives_generated_requests(start_server, tmp_path):
    server = start_server({"SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"})
    key = server.key("admin", "fuzzer")
    schemathesis = Path(sys.executable).with_name("schemathesis")
    out = subprocess.run(
        [str(schemathesis), "run", server.url + "/v1/openapi.json",
         "--checks", CHECKS,
         "--header", f"Authorization: Bearer {key}",
         "--tls-verify", server.verify,
         "--max-examples", MAX_EXAMPLES,
         "--phases", "examples,coverage,fuzzing",
         "--seed", "20261122",
         "--request-timeout", "20",
         "--workers", "2",
         "--no-color",
         # Headless hosts answer these with their documented 503s (navigation_unavailable,
         # live_preview_unavailable), which the server-error check counts; tests/display covers them.
         "--exclude-path", "/v1/display/navigation",
         "--exclude-path", "/v1/display/live-preview/session",
         "--report-dir", str(tmp_path / "report")],
        capture_output=True, text=True, timeout=int(MAX_SECONDS) * 3 + 120,
    )
    report = out.stdout[-12000:] + out.stderr[-3000:]
    assert out.returncode == 0, report
    assert "No issues found" in out.stdout or " passed" in out.stdout, report
    assert "Traceback" not in server.log, server.log[-5000:]
