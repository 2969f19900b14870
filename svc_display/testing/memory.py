"""A process's memory as the kernel counts it, for the memory bounds of the hostile-input
tests (docs/reliability.md): resident set now, and its peak since :func:`reset_peak`.

Read from ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``); the peak is reset by writing ``5``
to ``/proc/<pid>/clear_refs`` (Linux 4.0+, the process's owner or root), so that a test
measures the peak of its own input, not that of an earlier test of the same server.
"""
from __future__ import annotations

from pathlib import Path

MIB = 1024 * 1024


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(f"no {field} for process {pid}")


def rss(pid: int) -> int:
    """Resident bytes of ``pid`` now."""
    return _status(pid, "VmRSS")


def peak_rss(pid: int) -> int:
    """The most resident bytes of ``pid`` since it started or since :func:`reset_peak`."""
    return _status(pid, "VmHWM")


def reset_peak(pid: int) -> int:
    """Reset the peak of ``pid`` to its resident bytes now; returns them."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    return rss(pid)
