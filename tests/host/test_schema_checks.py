"""Type schemas checked once per machine (svc_host/schema_checks.py): a pair that passed in one
process is not checked again in the next; a pair with a problem is checked and refused every time;
a cache that cannot be read or written changes nothing but the time."""
from __future__ import annotations

import json
import os
import stat

import jsonschema
import pytest

from hookspecs import ScreenType
from svc_host import registries
from svc_host.plugins import PluginError
from svc_host.schema_checks import FILE_NAME, MAX_BYTES, CheckedSchemas, cache_file

GOOD = json.dumps([{"type": "object", "properties": {"body": {"type": "string"}}}, {"body": "hi"}], sort_keys=True)


@pytest.fixture
def checks(monkeypatch, tmp_path):
    """The meta-schema checks made, counted; the user's cache under ``tmp_path``; a process's
    first look at each pair (``_schema_problem``'s in-process memory emptied before and after)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    made: list[object] = []
    real = jsonschema.Draft202012Validator.check_schema.__func__

    def counted(cls, schema, *args, **kwargs):
        made.append(schema)
        return real(cls, schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", classmethod(counted))
    monkeypatch.setattr(registries, "checked_schemas", lambda: CheckedSchemas(cache_file()))  # a new process's view
    registries._schema_problem.cache_clear()
    yield made
    registries._schema_problem.cache_clear()


def check(text: str) -> str | None:
    registries._schema_problem.cache_clear()  # as in a new process
    return registries._schema_problem(text)


def test_a_pair_that_passed_is_not_checked_again_by_the_next_process(checks, tmp_path):
    assert check(GOOD) is None and len(checks) == 1
    path = tmp_path / "cache" / "svc-display" / FILE_NAME
    assert path == cache_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert check(GOOD) is None and len(checks) == 1  # the next process: remembered
    # another example, or another schema: another pair, checked
    other = json.dumps([{"type": "object"}, {"body": "other"}], sort_keys=True)
    assert check(other) is None and len(checks) == 2
    assert len(path.read_text().splitlines()) == 2


@pytest.mark.parametrize("schema, example, problem", [
    ({"type": "nonsense"}, {}, "has an invalid JSON Schema"),
    ({"type": "object", "required": ["body"]}, {}, "example does not match its schema"),
])
def test_a_pair_with_a_problem_is_checked_and_refused_every_time(checks, schema, example, problem):
    text = json.dumps([schema, example], sort_keys=True)
    for _ in range(3):
        assert problem in check(text)
    assert len(checks) == 3
    assert not cache_file().exists()


def test_a_type_with_a_bad_schema_is_refused_at_registration_after_good_ones_were_remembered(checks):
    assert check(GOOD) is None
    bad = ScreenType(id="bad_type", label="Bad", config_schema={"type": "nonsense"}, example_config={})
    with pytest.raises(PluginError, match="invalid JSON Schema"):
        registries._check_configurable(bad, "someone")


def test_an_unwritable_or_garbled_cache_changes_nothing_but_the_time(checks, tmp_path, monkeypatch):
    # a file where the directory should be: nothing can be written, every process checks
    (tmp_path / "blocked").write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "blocked"))
    assert check(GOOD) is None and check(GOOD) is None and len(checks) == 2
    # garbage lines are ignored; a digest-shaped line of nothing known matches nothing
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "garbled"))
    path = cache_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe garbage\n" + b"0" * 64 + b"\n")
    assert check(GOOD) is None and len(checks) == 3
    assert check(GOOD) is None and len(checks) == 3  # then remembered beside the garbage


def test_a_file_past_its_size_starts_again(checks):
    path = cache_file()
    path.parent.mkdir(parents=True)
    path.write_text(("f" * 64 + "\n") * (MAX_BYTES // 65 + 10))
    assert check(GOOD) is None and len(checks) == 1
    assert path.stat().st_size == 65 and check(GOOD) is None and len(checks) == 1


def test_a_host_build_remembers_every_builtin_type(checks, make_host):
    make_host()
    first = len(checks)
    assert first > 20  # every configurable builtin type's schema
    assert len(cache_file().read_text().splitlines()) == first
    registries._schema_problem.cache_clear()
    make_host()
    assert len(checks) == first  # the next host of a new process checks none of them again
    assert os.path.getsize(cache_file()) == first * 65
