"""Third-party plugins on disk for the suite: the example installed for PYTHONPATH, a broken one.

``hello_plugin_path`` is a fixture (the root conftest lists this module in ``pytest_plugins``)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import REPO


@pytest.fixture(scope="session")
def hello_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``examples/hello-plugin`` installed (without dependencies) into a folder for PYTHONPATH."""
    target = tmp_path_factory.mktemp("hello-plugin-site")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(REPO / "examples" / "hello-plugin")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return str(target)


def write_broken_plugin(folder: Path, name: str = "broken") -> str:
    """A third-party distribution whose entry point fails to import; returns the folder for PYTHONPATH."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_plugin.py").write_text("raise ImportError('this plugin is broken on purpose')\n")
    dist = folder / f"svc_display_{name}-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: svc-display-{name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[svc_display.plugins]\n{name} = {name}_plugin\n")
    return str(folder)
