"""A memory probe for benchmarks/upgrade_churn.py ``--probe`` (never loaded by the product).

Put on ``PYTHONPATH`` with ``SVC_MEMPROBE_DIR`` set, it starts a thread in the server that,
for each ``<name>.request`` file appearing in that folder, writes ``<name>.txt``: glibc's
``mallinfo2`` (main heap in use and free) and ``malloc_info`` (every arena), the threads,
pymalloc's arenas and blocks, and the object types whose counts changed most since the first
probe (``gc.get_objects``), and first what a full collection finds unreachable (by type) and the RSS
before and after it. ``SVC_MEMPROBE_FRAMES=6`` also starts tracemalloc at start-up (6
frames; slow, and its own tables raise RSS) and reports its top differences by traceback.
Written by hand: a few calls of the standard library and glibc, read from outside.
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


def _malloc_info() -> str:
    """glibc's ``malloc_info`` for every arena: bytes mapped now and bytes free in it."""
    import re
    import tempfile
    libc = ctypes.CDLL("libc.so.6")
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.NamedTemporaryFile(suffix=".xml") as out:
        handle = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, handle)
        libc.fclose(handle)
        xml = Path(out.name).read_text()
    lines = []
    for number, body in re.findall(r'<heap nr="(\d+)">(.*?)</heap>', xml, re.S):
        current = re.search(r'<system type="current" size="(\d+)"', body)
        free = sum(int(size) for size in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', body))
        lines.append(f"  arena {number}: mapped {int(current.group(1)) / 2**20:.1f} MiB, free in it {free / 2**20:.1f} MiB")
    return "glibc arenas:\n" + "\n".join(lines)


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


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _garbage() -> str:
    """What a full collection finds unreachable now (cycles the churn left for the next
    generation-2 collection), by type, and the RSS before and after it and a malloc_trim."""
    before = _rss_mib()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        found = gc.collect()
        types = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    top = ", ".join(f"{count} {name}" for name, count in types.most_common(8))
    return (f"full collection: {found} unreachable objects ({top or 'none'}); RSS {before:.1f} MiB before, "
            f"{_rss_mib():.1f} MiB after it and a malloc_trim")


def _probe(first: list) -> str:
    garbage = _garbage()
    out = io.StringIO()
    print(garbage, file=out)
    types = _types()
    print(f"pid {os.getpid()}, threads {threading.active_count()}: {[t.name for t in threading.enumerate()]}",
          file=out)
    print(_mallinfo(), file=out)
    print(_malloc_info(), file=out)
    print(_pymalloc(), file=out)
    if not first:
        first.extend([types, tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None])
        return out.getvalue()
    print("\nobject types whose count changed most:", file=out)
    changed = {name: types[name] - first[0][name] for name in set(types) | set(first[0])}
    for name, diff in sorted(changed.items(), key=lambda kv: -abs(kv[1]))[:20]:
        print(f"  {diff:+8d} {name}", file=out)
    if first[1] is None:
        return out.getvalue()
    snapshot = tracemalloc.take_snapshot()
    current, peak = tracemalloc.get_traced_memory()
    print(f"\ntracemalloc: traced {current / 2**20:.1f} MiB (peak {peak / 2**20:.1f} MiB); "
          "top differences against the first probe:", file=out)
    for stat in snapshot.compare_to(first[1], "traceback")[:15]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks", file=out)
        for line in stat.traceback.format()[-8:]:
            print("      " + line, file=out)
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
    if int(os.environ.get("SVC_MEMPROBE_FRAMES", "0")):
        tracemalloc.start(int(os.environ.get("SVC_MEMPROBE_FRAMES", "0")))
    threading.Thread(target=_watch, args=(Path(FOLDER),), name="memprobe", daemon=True).start()
