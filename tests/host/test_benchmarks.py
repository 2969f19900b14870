"""Every script under ``benchmarks/`` still imports (a renamed helper broke one unnoticed:
``catalog_query.py`` imported ``tests.conftest.Api`` long after it moved to the authors' kit).
Imported in a fresh interpreter each, as ``python benchmarks/x.py`` would, without running
``main``; running them is what their docstrings and docs/performance.md describe."""
import subprocess
import sys

import pytest

from tests import REPO

SCRIPTS = sorted(p.name for p in (REPO / "benchmarks").glob("*.py"))


def test_the_benchmarks_are_found():
    assert "catalog_query.py" in SCRIPTS and len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_imports(script):
    code = ("import importlib.util, sys\n"
            f"sys.argv = [{script!r}]\n"
            f"spec = importlib.util.spec_from_file_location('bench', {str(REPO / 'benchmarks' / script)!r})\n"
            "module = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(module)\n"
            "print('main' if callable(getattr(module, 'main', None)) else 'app' if callable(getattr(module, 'app', None))"
            " else 'nothing to run')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] in ("main", "app"), out.stdout  # a script, or an ASGI app (asgi_floor)
