"""The systemd unit of the display (``svc-display service unit``), the one source of
``examples/systemd/svc-display.service`` (``docs/deployment.md``).

``Type=notify`` with ``WatchdogSec=30``: the display says ``READY=1`` once it serves and pings
``WATCHDOG=1`` only while its canvas draws (svc_host/watchdog.py), so a frozen screen is
restarted. ``Restart=always`` with ``SuccessExitStatus=75`` is ``make run``'s rule: a restore
exits with 75 ("start me again").

Two shapes: a system unit (``User=``, ``StateDirectory=``; for a display with its own
graphical session, or headless) and, with ``session=True``, a user unit for the kiosk user's
graphical session (``systemctl --user``), which inherits ``DISPLAY``/``WAYLAND_DISPLAY``.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

WATCHDOG_SEC = 30
EXAMPLE_EXEC = "/opt/svc-display/.venv/bin/svc-display"
EXAMPLE_USER = "svc-display"


def default_exec() -> str:
    """This installation's ``svc-display`` (next to the interpreter, else on PATH)."""
    beside = Path(sys.executable).parent / "svc-display"
    if beside.exists():
        return str(beside)
    return shutil.which("svc-display") or EXAMPLE_EXEC


def render(exec_path: str | None = None, user: str | None = None, session: bool = False) -> str:
    exec_path = exec_path or default_exec()
    lines = [
        "# svc-display as a systemd service, written by `svc-display service unit`" +
        (" --session" if session else "") + " (docs/deployment.md).",
    ]
    if session:
        lines += [
            "# Copy to ~/.config/systemd/user/svc-display.service of the kiosk user, then",
            "#   systemctl --user daemon-reload && systemctl --user enable --now svc-display",
            "#   loginctl enable-linger <user>   # when no one logs in: the session starts at boot",
        ]
    else:
        lines += [
            "# Copy to /etc/systemd/system/, adjust User and paths, then",
            "#   systemctl daemon-reload && systemctl enable --now svc-display",
        ]
    lines += [
        "[Unit]",
        "Description=svc-display signage host (REST API, collectors, display canvas)",
    ]
    if session:
        lines += ["PartOf=graphical-session.target", "After=graphical-session.target"]
    else:
        lines += ["After=network-online.target", "Wants=network-online.target"]
    lines += [
        "",
        "[Service]",
        "# READY=1 once the port is bound; WATCHDOG=1 only while the canvas draws frames (or, while",
        "# the panel is off or headless, while the server loop answers): a screen frozen on one",
        f"# frame stops the pings and is restarted {WATCHDOG_SEC} s later.",
        "Type=notify",
        "NotifyAccess=main",
        f"WatchdogSec={WATCHDOG_SEC}",
    ]
    if not session:
        lines += [f"User={user or EXAMPLE_USER}", "Environment=SVC_DISPLAY_DATA_DIR=/var/lib/svc-display"]
    lines += [
        "# Environment=SVC_DISPLAY_UPGRADE_SCRIPT=/opt/svc-display/upgrade-helper",
        "# Environment=SVC_DISPLAY_POWER_BACKEND=cec",
        f"ExecStart={exec_path} serve",
        "# A restore (POST /v1/display/backup/restore) exits with status 75 once in-flight requests",
        "# finish; the next start swaps the restored data in before the database opens. Restart=always",
        "# starts it again after that, after crashes and after a watchdog timeout; 75 is an expected",
        "# status, not a failure.",
        "Restart=always",
        "RestartSec=2",
        "SuccessExitStatus=75",
        "# uvicorn waits up to 30 s for in-flight requests on SIGTERM",
        "TimeoutStopSec=45",
        "# SIGTERM to svc-display alone: it stops its folder plugins' sidecars itself (SIGTERM, SIGKILL",
        "# 10 s later). Whatever is still in the unit's cgroup at the end (a sidecar's grandchild that",
        "# left its process group) gets SIGKILL.",
        "KillMode=mixed",
    ]
    if not session:
        lines += ["StateDirectory=svc-display", "StateDirectoryMode=0700"]
    lines += [
        "UMask=0077",
        "",
        "[Install]",
        "WantedBy=" + ("graphical-session.target" if session else "multi-user.target"),
    ]
    return "\n".join(lines) + "\n"
