"""A memory probe for benchmarks/upgrade_churn.py ``--probe`` (never loaded by the product).

Put on ``PYTHONPATH`` with ``SVC_MEMPROBE_DIR`` set, it starts ``tracemalloc`` in the server at
start-up and a thread that, for each ``<name>.request`` file appearing in that folder, writes
``<name>.txt``: glibc's ``mallinfo2`` (heap in use and free), Python's allocated blocks and
pymalloc arenas, tracemalloc's traced bytes and the top differences against the first probe
(by traceback), and the object types whose counts changed most (``gc.get_objects``). Written
by hand: it is a few calls of the standard library, read from outside the process.
"""
from __future__ import annotations

import collections
import ctypes
import gc
import io
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

FOLDER = os.environ.get("SVC_MEMPROBE_DIR")


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _mallinfo() -> str:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return "mallinfo2: unavailable"
    mib = 1024 * 1024
    return (f"glibc: main arena {info.arena / mib:.1f} MiB, mmapped {info.hblkhd / mib:.1f} MiB "
            f"({info.hblks} blocks), in use {info.uordblks / mib:.1f} MiB, free in heaps "
            f"{info.fordblks / mib:.1f} MiB ({info.ordblks} chunks), trimmable top {info.keepcost / mib:.1f} MiB")


def _pymalloc() -> str:
    # sys._debugmallocstats writes to C stderr: read it through a pipe
    read_end, write_end = os.pipe()
    saved = os.dup(2)
    os.dup2(write_end, 2)
    try:
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        text = pipe.read().decode(errors="replace")
    keep = [line for line in text.splitlines() if "arenas" in line or line.startswith(("# bytes in", "Total"))]
    return "\n".join(keep[:14]) or "pymalloc: no statistics"


def _types() -> collections.Counter:
    return collections.Counter(type(o).__name__ for o in gc.get_objects())


def _probe(first: list) -> str:
    gc.collect()
    out = io.StringIO()
    snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    types = _types()
    current, peak = tracemalloc.get_traced_memory()
    print(f"pid {os.getpid()}, threads {threading.active_count()}", file=out)
    print(_mallinfo(), file=out)
    print(f"tracemalloc: traced {current / 2**20:.1f} MiB (peak {peak / 2**20:.1f} MiB)", file=out)
    print(_pymalloc(), file=out)
    if not first:
        first.extend([snapshot, types])
        return out.getvalue()
    print("\ntop tracemalloc differences against the first probe:", file=out)
    for stat in snapshot.compare_to(first[0], "traceback")[:15]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks", file=out)
        for line in stat.traceback.format()[-8:]:
            print("      " + line, file=out)
    print("\nobject types whose count changed most:", file=out)
    changed = {name: types[name] - first[1][name] for name in set(types) | set(first[1])}
    for name, diff in sorted(changed.items(), key=lambda kv: -abs(kv[1]))[:20]:
        print(f"  {diff:+8d} {name}", file=out)
    return out.getvalue()


def _watch(folder: Path) -> None:
    first: list = []
    while True:
        for request in sorted(folder.glob("*.request")):
            text = _probe(first)
            request.with_suffix(".txt").write_text(text)
            request.unlink()
        time.sleep(0.2)


if FOLDER:
    tracemalloc.start(6)
    threading.Thread(target=_watch, args=(Path(FOLDER),), name="memprobe", daemon=True).start()
