"""Stand-in executables for the power backends' tools, put first on ``PATH``.

Each records its arguments and stdin (one JSON line per call in ``calls.jsonl``) and answers
like the real tool from a panel state kept in ``panel`` (``on`` or ``standby``). ``mode``
(a file) changes the panel: ``ignore_standby`` (a TV that ignores standby), ``hang`` (a
``cec-client`` that never returns; it writes its pid to ``hung`` first), ``fail`` (exit status 1).
"""
from __future__ import annotations

import json
import os
import socket
import stat
import sys
import time
import uuid
from pathlib import Path

TOOLS = ("cec-client", "vcgencmd", "wlr-randr", "xset")

SCRIPT = r'''#!{python}
import json, os, sys, time
from pathlib import Path
here = Path({folder!r})
tool = os.path.basename(sys.argv[0])
args = sys.argv[1:]
stdin = sys.stdin.read() if tool == "cec-client" else ""
with open(here / "calls.jsonl", "a") as log:
    log.write(json.dumps({{"tool": tool, "args": args, "stdin": stdin}}) + "\n")
mode = (here / "mode").read_text().strip() if (here / "mode").exists() else ""
panel_file = here / "panel"
panel = panel_file.read_text().strip() if panel_file.exists() else "on"
if mode == "fail":
    print("no adapter found", file=sys.stderr)
    sys.exit(1)
if mode == "hang" and tool == "cec-client":
    (here / "hung").write_text(str(os.getpid()))
    while True:
        time.sleep(1)

def switch(on):
    if not on and mode == "ignore_standby":
        return
    panel_file.write_text("on" if on else "standby")

if tool == "cec-client":
    print("opening a connection to the CEC adapter...")
    command = stdin.strip()
    if command in ("on 0", "standby 0"):
        switch(command == "on 0")
    elif command == "pow 0":
        print("power status: " + panel)
elif tool == "vcgencmd":
    if args[1:]:
        switch(args[1] == "1")
    else:
        print("display_power=" + ("1" if panel == "on" else "0"))
elif tool == "wlr-randr":
    if args:
        switch(args[-1] == "--on")
    else:
        print('HDMI-A-1 "Stand-in Panel"')
        print("  Enabled: " + ("yes" if panel == "on" else "no"))
        print("  Modes:")
        print("    1920x1080 px, 60.000000 Hz (preferred, current)")
elif tool == "xset":
    if args[:2] == ["dpms", "force"]:
        switch(args[2] == "on")
    elif args == ["q"]:
        print("DPMS (Energy Star):")
        print("  Monitor is " + ("On" if panel == "on" else "Off"))
'''


class StandIns:
    def __init__(self, folder: Path, tools: tuple[str, ...] = TOOLS):
        self.folder = folder
        self.bin = folder / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        for tool in tools:
            path = self.bin / tool
            path.write_text(SCRIPT.format(python=sys.executable, folder=str(folder)))
            path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def path(self) -> str:
        """``PATH`` with the stand-ins first and nothing else of the tools' kind."""
        return f"{self.bin}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"

    def set_mode(self, mode: str) -> None:
        (self.folder / "mode").write_text(mode)

    @property
    def panel(self) -> str:
        path = self.folder / "panel"
        return path.read_text().strip() if path.exists() else "on"

    def calls(self) -> list[dict]:
        path = self.folder / "calls.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


WATCHDOG_USEC = 2_000_000  # an interval of 2 s: pings every 0.5 s, none 1 s after the last sign of life


class Systemd:
    """The notify socket: an abstract-namespace datagram socket, as systemd's own is."""

    def __init__(self):
        self.name = f"svc-display-test-{uuid.uuid4().hex[:12]}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.name)

    def receive(self, timeout: float) -> str | None:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(4096).decode()
        except (TimeoutError, socket.timeout):
            return None

    def wait(self, message: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.receive(max(0.01, deadline - time.monotonic())) == message:
                return
        raise AssertionError(f"no {message} within {timeout} s")

    def drain(self, seconds: float) -> list[str]:
        got, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            message = self.receive(left)
            if message is not None:
                got.append(message)
        return got
