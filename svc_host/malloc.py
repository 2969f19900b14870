"""glibc's malloc, tuned for a long-running server (no-ops elsewhere: musl, macOS, Windows).

- :func:`limit_malloc_arenas`: at most two arenas, called first thing in ``svc-display``'s
  command line (``svc_host.cli.main``), before any thread exists: glibc gives a thread its
  arena on its first ``malloc``, so a limit set later (it was set in the display runtime, after
  plugin loading and the host had started threads) leaves the arenas already made (four
  where two were asked, each keeping its own free memory; docs/reliability.md).
- :func:`release_freed_memory`: ``malloc_trim`` every 30 s on a daemon thread (the display
  runtime starts it in every mode).

ctypes by hand: no maintained library exposes ``mallopt``/``malloc_trim``.
"""
from __future__ import annotations

import os
import threading
from typing import Any

MALLOC_ARENAS = 2
M_ARENA_MAX = -8  # glibc's mallopt parameter
TRIM_SECONDS = 30.0


def _glibc() -> Any:
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:  # not glibc (musl, macOS, Windows): its allocator, its own policy
        return None


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> None:
    """At most ``arenas`` glibc malloc arenas for the threads started from now on (Kivy's,
    llvmpipe's, the loader's, the server's), instead of eight per core each holding its own free
    memory (``MALLOC_ARENA_MAX`` in the environment decides instead when set)."""
    libc = _glibc()
    if libc is not None and "MALLOC_ARENA_MAX" not in os.environ:
        libc.mallopt(M_ARENA_MAX, arenas)


def release_freed_memory(every: float = TRIM_SECONDS, stop: threading.Event | None = None) -> None:
    """Every ``every`` seconds give the memory glibc holds free back to the system
    (``malloc_trim``): what a slide that left frees (its pictures' pixels, its labels' textures,
    its decoded content) stays in the heap's free lists otherwise, 20-35 MB of a 12-slide
    program's ~300 MB. Runs on its own thread (a daemon) until ``stop`` is set."""
    libc = _glibc()
    stop = stop or threading.Event()
    while libc is not None and not stop.wait(every):
        libc.malloc_trim(0)
