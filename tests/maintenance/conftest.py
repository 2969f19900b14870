"""One real server process per test module (tests that do not stop or restore it share it)."""
from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from svc_display.testing import ServerProcess


def server_env(folder: Path, **extra: str) -> dict[str, str]:
    return {"SVC_DISPLAY_DATA_DIR": str(folder / "data"), "SVC_DISPLAY_HEADLESS": "1",
            "SVC_DISPLAY_TEST_CLOCK_FILE": str(folder / "clock-offset-ms"), **extra}


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory):
    server = ServerProcess(server_env(tmp_path_factory.mktemp("maintenance"))).start(timeout=60)
    server.admin = server.key("admin")
    yield server
    server.stop()


def database_rows(path: Path, tables: list[str] | None = None) -> dict[str, set]:
    """Every row of every table (or of ``tables``) of a live SQLite file, read without writing."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = tables or [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        return {name: set(conn.execute(f'SELECT * FROM "{name}"').fetchall()) for name in names}
    finally:
        conn.close()


def tree_digest(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder``, by relative path."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}
