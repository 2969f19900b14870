"""Switching the panel (CONTRACT "Display power"): one backend per way of reaching it.

``cec`` (HDMI-CEC through ``cec-client``), ``vcgencmd`` (the Raspberry Pi firmware),
``wlr`` (``wlr-randr`` under a wlroots Wayland compositor), ``dpms`` (``xset`` under X11) and
``none``. :func:`choose` detects the first usable one in that order unless
``SVC_DISPLAY_POWER_BACKEND`` names one. Each ``apply(on)`` runs the tool and then reads the
panel's state back (``on``, ``standby`` or ``unknown``); a command that fails, exits non-zero
or outlives its timeout raises :class:`BackendError`. Every call runs on the power plugin's
own worker thread (:mod:`.controller`), never on the UI or a request thread.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Mapping, Sequence

BACKENDS = ("cec", "vcgencmd", "wlr", "dpms", "none")
ENV_BACKEND = "SVC_DISPLAY_POWER_BACKEND"
ENV_TIMEOUT = "SVC_DISPLAY_POWER_COMMAND_TIMEOUT"
DEFAULT_TIMEOUT = 15.0  # cec-client takes a few seconds to open the adapter and scan the bus
PANEL_STATES = ("on", "standby", "unknown")


class BackendError(RuntimeError):
    """A power command failed (the message says which command and why)."""


def run(argv: Sequence[str], timeout: float, stdin: str | None = None) -> str:
    """``argv``'s stdout; :class:`BackendError` when it cannot start, fails or times out
    (``subprocess.run`` kills a command that outlives ``timeout``)."""
    try:
        done = subprocess.run(list(argv), input=stdin, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise BackendError(f"{argv[0]} did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise BackendError(f"{argv[0]} could not run: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise BackendError(f"{' '.join(argv)} exited with {done.returncode}"
                           + (f": {detail[-1][:200]}" if detail else ""))
    return done.stdout


class Backend:
    name = "none"
    tool: str | None = None

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, environ: Mapping[str, str] | None = None):
        self.timeout = timeout
        self.environ = os.environ if environ is None else environ

    def available(self) -> bool:
        """The tool is on ``PATH`` (and its display server is there, for ``wlr`` and ``dpms``)."""
        return self.tool is None or shutil.which(self.tool, path=self.environ.get("PATH")) is not None

    def apply(self, on: bool) -> str:
        """Switch the panel; returns what it reads back (``on``/``standby``/``unknown``)."""
        return "unknown"

    def run(self, *argv: str, stdin: str | None = None) -> str:
        """Run a tool found on this backend's ``PATH`` (the environment it was chosen with)."""
        found = shutil.which(argv[0], path=self.environ.get("PATH"))
        return run([found or argv[0], *argv[1:]], self.timeout, stdin)


class Cec(Backend):
    """``cec-client -s -d 1`` with one command on stdin: ``on 0``/``standby 0`` (device 0 is the
    TV), then ``pow 0``, which answers ``power status: on|standby|in transition ...``."""

    name = "cec"
    tool = "cec-client"

    def cec(self, command: str) -> str:
        return self.run("cec-client", "-s", "-d", "1", stdin=command + "\n")

    def apply(self, on: bool) -> str:
        self.cec("on 0" if on else "standby 0")
        status = re.search(r"power status:\s*([a-z ]+)", self.cec("pow 0"))
        if status is None:
            return "unknown"
        word = status.group(1).strip()
        return "on" if word == "on" else "standby" if word == "standby" else "unknown"


class Vcgencmd(Backend):
    """``vcgencmd display_power 0|1``; ``vcgencmd display_power`` reads ``display_power=0|1``."""

    name = tool = "vcgencmd"

    def apply(self, on: bool) -> str:
        self.run("vcgencmd", "display_power", "1" if on else "0")
        found = re.search(r"display_power=(-?\d+)", self.run("vcgencmd", "display_power"))
        return {"1": "on", "0": "standby"}.get(found.group(1), "unknown") if found else "unknown"


class Wlr(Backend):
    """``wlr-randr --output NAME --on|--off`` for every output ``wlr-randr`` lists (a line
    starting in the first column names one; its ``Enabled: yes|no`` is read back)."""

    name = "wlr"
    tool = "wlr-randr"

    def available(self) -> bool:
        return bool(self.environ.get("WAYLAND_DISPLAY")) and super().available()

    @staticmethod
    def outputs(listing: str) -> dict[str, bool | None]:
        outputs: dict[str, bool | None] = {}
        current = None
        for line in listing.splitlines():
            if line and not line[0].isspace():
                current = line.split()[0]
                outputs[current] = None
            elif current is not None and line.strip().lower().startswith("enabled:"):
                outputs[current] = line.split(":", 1)[1].strip().lower() == "yes"
        return outputs

    def apply(self, on: bool) -> str:
        names = list(self.outputs(self.run("wlr-randr")))
        if not names:
            raise BackendError("wlr-randr lists no output")
        for name in names:
            self.run("wlr-randr", "--output", name, "--on" if on else "--off")
        states = set(self.outputs(self.run("wlr-randr")).values())
        return "on" if states == {True} else "standby" if states == {False} else "unknown"


class Dpms(Backend):
    """``xset dpms force on|off``; ``xset q`` says ``Monitor is On|Off|in Standby|in Suspend``."""

    name = "dpms"
    tool = "xset"

    def available(self) -> bool:
        return bool(self.environ.get("DISPLAY")) and super().available()

    def apply(self, on: bool) -> str:
        self.run("xset", "dpms", "force", "on" if on else "off")
        found = re.search(r"Monitor is (On|Off|in Standby|in Suspend)", self.run("xset", "q"))
        return "unknown" if found is None else "on" if found.group(1) == "On" else "standby"


CLASSES: dict[str, type[Backend]] = {"cec": Cec, "vcgencmd": Vcgencmd, "wlr": Wlr, "dpms": Dpms, "none": Backend}


def choose(headless: bool, named: str = "", timeout: float = DEFAULT_TIMEOUT,
           environ: Mapping[str, str] | None = None) -> tuple[Backend, str | None]:
    """The backend to use and, when ``named`` asked for something else, why not.

    Headless: ``none``. ``named`` (``SVC_DISPLAY_POWER_BACKEND``, declared by the plugin, so the
    host refuses an unknown name at start) is used as is; otherwise the first available of
    :data:`BACKENDS`. ``environ`` is where the tools are looked for (``PATH``, ``DISPLAY``)."""
    env = os.environ if environ is None else environ
    if headless:
        return Backend(timeout, env), None
    if named:
        if named in CLASSES:
            return CLASSES[named](timeout, env), None
        return Backend(timeout, env), (f"{ENV_BACKEND}={named!r} is not one of {', '.join(BACKENDS)}; "
                                       "using none")
    for name in BACKENDS:
        backend = CLASSES[name](timeout, env)
        if backend.available():
            return backend, None
    return Backend(timeout, env), None
