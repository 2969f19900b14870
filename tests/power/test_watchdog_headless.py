"""The watchdog of a headless display: ``READY=1`` once it serves, ``WATCHDOG=1`` from the server
loop (uvicorn's event loop, waitress's), ``STOPPING=1`` on SIGTERM; nothing without ``NOTIFY_SOCKET``."""
from __future__ import annotations

import pytest

from svc_display.testing import ServerProcess
from tests.power.standins import WATCHDOG_USEC, Systemd

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("server_kind", ["uvicorn", "waitress"])
def test_a_headless_display_pings_while_its_server_loop_runs(tmp_path, server_kind):
    systemd = Systemd()
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_HEADLESS": "1",
           "NOTIFY_SOCKET": "@" + systemd.name, "WATCHDOG_USEC": str(WATCHDOG_USEC),
           **({"SVC_DISPLAY_HTTP_SERVER": "waitress"} if server_kind == "waitress" else {})}
    server = ServerProcess(env).start(timeout=60)
    try:
        systemd.wait("READY=1")
        systemd.wait("WATCHDOG=1")
        systemd.wait("WATCHDOG=1")
    finally:
        assert server.stop() == 0
    systemd.wait("STOPPING=1", timeout=10)
