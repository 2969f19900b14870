"""The live-state file: what a serving process writes into its data dir (every entry point and
folder plugin with its state) so that ``svc-display plugins list`` in another process shows the
running server's view, and removes when it stops."""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any


STATE_FILE = "plugins-state.json"


def _process_started(pid: int) -> str | None:
    """When process ``pid`` started (``/proc/<pid>/stat`` field 22), so a reused pid is not
    taken for the server; None when there is no such process (or no ``/proc``: then ``""``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return ""
    except OSError:
        return None
    fields_after_name = stat.rsplit(")", 1)[1].split()
    return fields_after_name[19] if fields_after_name[0] != "Z" else None


def write_state_file(data_dir: Path, items: list[dict[str, Any]]) -> None:
    """Replace ``<data dir>/plugins-state.json`` (0600) with ``items``, marked with this process."""
    body = {"pid": os.getpid(), "process_started": _process_started(os.getpid()),
            "written_at_ms": int(time.time() * 1000), "items": items}
    fd, tmp = tempfile.mkstemp(prefix=".plugins-state-", dir=data_dir)  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(body, handle)
        os.replace(tmp, Path(data_dir) / STATE_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_state_file(data_dir: Path) -> None:
    """Remove the state file this process wrote (a stopped server shows no live state)."""
    path = Path(data_dir) / STATE_FILE
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def read_live_state(data_dir: Path) -> dict[str, Any] | None:
    """The state file of the server running on ``data_dir``; None when no live server wrote one."""
    try:
        body = json.loads((Path(data_dir) / STATE_FILE).read_text())
        pid, started, items = body["pid"], body.get("process_started"), body["items"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(pid, int) or not isinstance(items, list):
        return None
    alive = _process_started(pid)
    if alive is None or (started and alive and alive != started):
        return None
    return body
