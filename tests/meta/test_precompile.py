"""tests/precompile.py: before make test's workers start, the test modules' rewritten bytecode is
written, each module by one of the parallel collections."""
from __future__ import annotations

from pathlib import Path

from tests.precompile import modules_under, precompile


def test_every_test_module_gets_its_rewritten_bytecode_written_once(tmp_path: Path) -> None:
    for folder, name in (("a", "test_one"), ("a", "test_two"), ("b", "test_three")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / f"{name}.py").write_text(f"def test_{name}():\n    assert 1 + 1 == 2\n")
    (tmp_path / "a" / "helper.py").write_text("X = 1\n")  # not a test module: not collected
    files = modules_under([tmp_path])
    assert [path.name for path in files] == ["test_one.py", "test_two.py", "test_three.py"]

    assert precompile([tmp_path], shares=2, cwd=tmp_path) == [0, 0]
    written = sorted(path.name.split(".")[0] for path in tmp_path.rglob("__pycache__/*-pytest-*.pyc"))
    assert written == ["test_one", "test_three", "test_two"]  # by pytest's assertion rewriting
    assert not list(tmp_path.rglob("__pycache__/helper*"))
