"""The plugin author's kit without a PostgreSQL server (issue 34 item 6, issue 37 item 4): an
author's test runs on SQLite; a test that asks for PostgreSQL (``svc_display_storage``) is
skipped with one clear line in the summary, or fails when ``SVC_REQUIRE_PG=1``.

Each case is a fresh pytest process (the kit found through its ``pytest11`` entry point) whose
``SVC_TEST_PG_URL`` names a loopback port that refuses connections: a socket bound here (port 0,
the OS's choice) and never listening, so no other process can be answering on it.
"""
import os
import socket
import subprocess
import sys

import pytest

AUTHOR_TEST = '''
import pytest
import hello_plugin

V1_0 = "CREATE TABLE hello_greeting (id TEXT PRIMARY KEY, text TEXT); INSERT INTO hello_greeting VALUES ('1', 'hi')"


def test_migrates_on_the_default_backend(svc_display_migrated, svc_display_host):
    assert svc_display_migrated(hello_plugin, V1_0, "hello_greeting") == {
        "sqlite": [{"id": "1", "text": "hi", "lang": ""}]}
    assert "hello" in svc_display_host(plugins=[hello_plugin]).plugins.info


@pytest.mark.svc_display_storage
def test_asks_for_postgres_too(svc_display_migrated, svc_display_backend):
    rows = svc_display_migrated(hello_plugin, V1_0, "hello_greeting")
    assert rows == {svc_display_backend: [{"id": "1", "text": "hi", "lang": ""}]}
'''


@pytest.fixture
def refusing_url():
    """A PostgreSQL URL on a loopback port bound here and not listening: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"postgresql://postgres@127.0.0.1:{sock.getsockname()[1]}/test"


def run_author_tests(tmp_path, hello_plugin_path, pg_url, **env):
    (tmp_path / "test_author.py").write_text(AUTHOR_TEST)
    values = {key: value for key, value in os.environ.items()
              if key not in ("SVC_TEST_BACKENDS", "SVC_REQUIRE_PG", "PYTEST_XDIST_WORKER")}
    values.update({"PYTHONPATH": hello_plugin_path, "SVC_TEST_PG_URL": pg_url, **env})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-W", "ignore", str(tmp_path / "test_author.py")],
                          capture_output=True, text=True, timeout=300, env=values, cwd=str(tmp_path))


@pytest.mark.parametrize("backends", [None, "sqlite"])
def test_an_authors_tests_pass_on_sqlite_without_postgres(tmp_path, hello_plugin_path, refusing_url,
                                                          backends):
    out = run_author_tests(tmp_path, hello_plugin_path, refusing_url,
                           **({"SVC_TEST_BACKENDS": backends} if backends else {}))
    report = out.stdout + out.stderr
    assert out.returncode == 0, report
    assert "OperationalError" not in report
    if backends == "sqlite":  # none on PostgreSQL: nothing to skip
        assert "2 passed" in out.stdout and "skipped" not in out.stdout, report
    else:  # the marked test's PostgreSQL run is skipped, said once with the reason
        assert "2 passed, 1 skipped" in out.stdout, report
        port = refusing_url.rsplit(":", 1)[1].split("/")[0]
        said = [line for line in out.stdout.splitlines()
                if line.startswith("1 tests skipped: PostgreSQL not reachable")]
        assert len(said) == 1, report
        assert f"127.0.0.1:{port} (Connection refused)" in said[0] and "SVC_REQUIRE_PG=1" in said[0], said


def test_svc_require_pg_turns_the_skip_into_a_failure(tmp_path, hello_plugin_path, refusing_url):
    out = run_author_tests(tmp_path, hello_plugin_path, refusing_url, SVC_REQUIRE_PG="1")
    report = out.stdout + out.stderr
    assert out.returncode == 1, report
    assert "2 passed, 1 error" in out.stdout, report
    assert "PostgreSQL not reachable" in out.stdout and "SVC_REQUIRE_PG=1 requires it" in out.stdout, report
