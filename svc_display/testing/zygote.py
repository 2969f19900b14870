"""The zygote of :mod:`svc_display.testing.forkserver`: ``python -m svc_display.testing.zygote FD``.

Apart from that module because the kit's package imports it, and ``-m`` must not run a module
already imported."""
from svc_display.testing.forkserver import _main

child = _main()
if child is not None:
    child()  # outside the loop's frames: the command's exit status, tracebacks and atexit as in a fresh process
