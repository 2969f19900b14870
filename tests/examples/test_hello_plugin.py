"""examples/hello-plugin installed as a real third-party distribution."""
import json
import os
import subprocess
import sys

import pytest
from pony import orm

from hookspecs import hookimpl
from tests import REPO
from tests.examples.plugins import write_broken_plugin

EXAMPLE = REPO / "examples" / "hello-plugin"
HOOKS = ["register_entities", "register_integration_types", "register_migrations", "register_overlay_types",
         "register_routes", "register_screen_types", "register_ticker_types"]


@pytest.fixture
def hello_plugin(monkeypatch):
    """The example's module, imported from its source folder (on ``sys.path`` for this test only)."""
    import importlib

    monkeypatch.syspath_prepend(str(EXAMPLE))
    return importlib.import_module("hello_plugin")


def _cli(*args, pythonpath, env=None):
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(pythonpath)}
    return subprocess.run([sys.executable, "-m", "svc_host", *args], capture_output=True, text=True,
                          env=full_env, timeout=120)


def plugin_code_lines(folder):
    """Lines of code (no blank lines, comments or docstrings) in the .py files of ``folder``."""
    import ast
    import io
    import tokenize

    total = 0
    for path in sorted(folder.glob("*.py")):
        source = path.read_text()
        docstrings = set()
        for node in ast.walk(ast.parse(source)):
            body = getattr(node, "body", None)
            first = body[0] if isinstance(body, list) and body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
        code = set()
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENDMARKER):
                code.update(range(token.start[0], token.end[0] + 1))
        total += len(code - docstrings)
    return total


def test_the_example_stays_small_and_its_test_covers_every_part():
    # issues 11 and 27: a screen type with its renderer, a ticker type, an overlay panel, a
    # collector with its table and migration, and a route in at most 80 lines of code, tested
    # in at most 20 lines with one svc_display.testing helper per part
    assert plugin_code_lines(EXAMPLE / "hello_plugin") <= 80
    test = (EXAMPLE / "tests" / "test_hello.py").read_text()
    assert len(test.splitlines()) <= 20
    for part in ('svc_display_frame(host, "screen"', 'svc_display_frame(host, "ticker"',
                 'svc_display_frame(host, "overlay"', "svc_display_collect(host", "svc_display_migrated(",
                 'api.get("/v1/hello"'):
        assert part in test, part


def test_installed_plugin_is_listed_documented_and_answers(hello_plugin_path, svc_display_server):
    out = _cli("plugins", "list", "--json", pythonpath=[hello_plugin_path])
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["hello"]["origin"] == "third-party"
    assert rows["hello"]["version"] == "1.1.0"
    assert rows["hello"]["hooks"] == HOOKS

    server = svc_display_server(pythonpath=[hello_plugin_path])  # HTTPS on a free loopback port
    assert server.url.startswith("https://127.0.0.1:")
    document = server.get("/v1/openapi.json").json()
    assert document["paths"]["/v1/hello"]["get"]["x-permission"] == "@authenticated"
    key = server.key("viewer", "hello-tester")
    answer = server.get("/v1/hello", key=key, params={"name": "lobby"})
    assert answer.status_code == 200
    assert answer.json() == {"message": "hello, lobby", "caller": "hello-tester"}
    assert server.get("/v1/hello").status_code == 401
    assert server.get("/v1/hello", key=key, params={"delay_ms": "-1"}).json()["code"] == "validation_failed"
    schemas = server.get("/v1/meta/config-schemas", key=key).json()
    ids = {kind: {item[field] for item in schemas[kind]} for kind, field in (
        ("screen_types", "screen_type"), ("ticker_tape_types", "ticker_type"),
        ("overlay_types", "overlay_type"), ("integration_types", "integration_type"))}
    assert "hello" in ids["screen_types"] and "hello" in ids["ticker_tape_types"]
    assert "hello_note" in ids["overlay_types"] and "hello_greetings" in ids["integration_types"]


def test_the_example_runs_its_own_tests(hello_plugin_path):
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                          str(EXAMPLE / "tests")], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": hello_plugin_path}, cwd=str(EXAMPLE))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout


class HelloOne:
    """hello 1.0, as a throwaway plugin: its table had no ``lang`` column and no migration."""

    @hookimpl
    def register_entities(db):
        class HelloGreeting(db.Entity):
            _table_ = "hello_greeting"
            id = orm.PrimaryKey(str, 64)
            text = orm.Optional(str, 200)


@pytest.mark.svc_display_storage
def test_upgrading_to_1_1_adds_the_lang_column_and_keeps_the_rows(hello_plugin, svc_display_host, svc_display_api):
    """On SQLite and on PostgreSQL (``svc_display_storage``: the kit's env carries the database)."""
    old = svc_display_host(plugins=[("hello", HelloOne)])
    with orm.db_session:
        old.db.HelloGreeting(id="1", text="hi")
    old.close()

    host = svc_display_host(plugins=[("hello", hello_plugin)])  # 1.1's migration 0002_lang adds lang
    with orm.db_session:
        assert host.db.AppliedMigration.get(plugin="hello", migration_id="0002_lang") is not None
        greeting = host.db.HelloGreeting["1"]
        assert (greeting.text, greeting.lang) == ("hi", "")
        greeting.lang = "en"
    api = svc_display_api(host)
    assert api.post("/v1/ticker/tapes", json={"id": "hi", "ticker_type": "hello"}).status_code == 201
    assert [item["body"] for item in api.get("/v1/ticker/items").json["items"]] == ["hi (en)"]


def test_a_third_party_plugin_that_fails_to_import_is_skipped(tmp_path, start_server):
    broken = write_broken_plugin(tmp_path / "site")
    out = _cli("plugins", "list", "--json", pythonpath=[broken])
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["broken"]["state"] == "failed" and "broken on purpose" in rows["broken"]["reason"]
    assert "skipping plugin 'broken'" in out.stderr and "broken on purpose" in out.stderr

    server = start_server(extra_pythonpath=[broken])
    assert server.get("/v1/health").json()["status"] == "ok"
    assert "skipping plugin 'broken'" in server.log
