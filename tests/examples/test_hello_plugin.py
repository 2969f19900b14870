"""examples/hello-plugin installed as a real third-party distribution."""
import json
import os
import subprocess
import sys

from tests.conftest import write_broken_plugin


def _cli(*args, pythonpath, env=None):
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(pythonpath)}
    return subprocess.run([sys.executable, "-m", "svc_host", *args], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_installed_plugin_is_listed_documented_and_answers(hello_plugin_path, start_server):
    out = _cli("plugins", "list", "--json", pythonpath=[hello_plugin_path])
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["hello"]["origin"] == "third-party"
    assert rows["hello"]["version"] == "1.0.0"
    assert rows["hello"]["hooks"] == ["register_routes"]

    server = start_server(extra_pythonpath=[hello_plugin_path])
    document = server.get("/v1/openapi.json").json()
    assert document["paths"]["/v1/hello"]["get"]["x-permission"] == "@authenticated"
    key = server.key("viewer", "hello-tester")
    answer = server.get("/v1/hello", key=key, params={"name": "lobby"})
    assert answer.status_code == 200
    assert answer.json() == {"message": "hello, lobby", "caller": "hello-tester"}
    assert server.get("/v1/hello").status_code == 401
    assert server.get("/v1/hello", key=key, params={"delay_ms": "-1"}).json()["code"] == "validation_failed"


def test_the_example_runs_its_own_tests(hello_plugin_path):
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "examples/hello-plugin/tests"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": hello_plugin_path})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout


def test_a_third_party_plugin_that_fails_to_import_is_skipped(tmp_path, start_server):
    broken = write_broken_plugin(tmp_path / "site")
    out = _cli("plugins", "list", "--json", pythonpath=[broken])
    assert out.returncode == 0, out.stderr
    assert "broken" not in {row["name"] for row in json.loads(out.stdout)}
    assert "skipping plugin 'broken'" in out.stderr and "broken on purpose" in out.stderr

    server = start_server(extra_pythonpath=[broken])
    assert server.get("/v1/health").json()["status"] == "ok"
    assert "skipping plugin 'broken'" in server.log
