"""Third-party plugins installed for real: a distribution folder with an ``svc_display.plugins``
entry point put on ``PYTHONPATH``, and the ``svc_host`` command line run with it."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests import REPO


def write_distribution(folder: Path, name: str, source: str) -> str:
    """A third-party distribution with one ``svc_display.plugins`` entry point; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_plugin.py").write_text(textwrap.dedent(source))
    dist = folder / f"svc_display_{name}-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: svc-display-{name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[svc_display.plugins]\n{name} = {name}_plugin\n")
    return str(folder)


def run_cli(env: dict, pythonpath: str, *args: str) -> subprocess.CompletedProcess:
    full = {**os.environ, **env, "PYTHONPATH": os.pathsep.join([pythonpath, str(REPO)])}
    return subprocess.run([sys.executable, "-m", "svc_host", *args], env=full, capture_output=True, text=True,
                          timeout=120)
