"""tests/precompile.py: before make test's workers start, the test modules' rewritten bytecode is
written, each module by one of the parallel collections."""
from __future__ import annotations

import os
from pathlib import Path

from tests.precompile import cached, modules_under, precompile


def test_every_test_module_gets_its_rewritten_bytecode_written_once(tmp_path: Path) -> None:
    for folder, name in (("a", "test_one"), ("a", "test_two"), ("b", "test_three")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / f"{name}.py").write_text(f"def test_{name}():\n    assert 1 + 1 == 2\n")
    (tmp_path / "a" / "helper.py").write_text("X = 1\n")  # not a test module: not collected
    files = modules_under([tmp_path])
    assert [path.name for path in files] == ["test_one.py", "test_two.py", "test_three.py"]

    assert precompile([tmp_path], shares=2, cwd=tmp_path, min_stale=1) == [0, 0]
    written = sorted(path.name.split(".")[0] for path in tmp_path.rglob("__pycache__/*-pytest-*.pyc"))
    assert written == ["test_one", "test_three", "test_two"]  # by pytest's assertion rewriting
    assert not list(tmp_path.rglob("__pycache__/helper*"))
    assert all(cached(path) for path in files)
    assert precompile([tmp_path], shares=2, cwd=tmp_path, min_stale=1) == []  # nothing left to write

    # an edited module has its cache written again; fewer than min_stale are left to the workers
    edited = tmp_path / "a" / "test_two.py"
    edited.write_text(edited.read_text() + "\n\ndef test_more():\n    assert [1] != [2]\n")
    for pyc in (edited.parent / "__pycache__").glob("test_two.*.pyc"):  # (written in the same second)
        os.utime(pyc, (pyc.stat().st_atime, edited.stat().st_mtime - 10))
    assert not cached(edited)
    assert precompile([tmp_path], shares=2, cwd=tmp_path, min_stale=2) == []
    assert precompile([tmp_path], shares=2, cwd=tmp_path, min_stale=1) == [0]
    assert cached(edited)
