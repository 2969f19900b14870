"""Screenshots of web pages through a headless Chromium (the ``plugin_web`` overlay of :mod:`.display`).

Kivy has no web engine, so a page is shown as a PNG that a browser took of it:
:func:`snapshot` runs the browser once per picture (a fresh temporary profile, a hard
timeout, the process group killed on timeout or cancel) and :class:`PeriodicSnapshot`
repeats that on a background thread for an overlay with ``refresh_seconds``.

The browser: ``SVC_DISPLAY_BROWSER`` when set, else the first of ``chromium``,
``chromium-browser``, ``google-chrome`` on ``PATH`` (Debian: ``apt-get install chromium``).

The browser resolves no host name but the page's own, so Chromium's background
services (component updates, sign-in, safe browsing) send nothing anywhere, and a page
loads only what its own host serves: plugin pages should be self-contained. The page's
scripts run for :data:`SCRIPT_BUDGET_MS` of virtual time before the picture (a page that
draws itself after a ``fetch`` shows its drawing). A page that fails to load (refused,
unknown host, TLS error) or is still loading after :data:`LOAD_BUDGET_MS` gives no
picture. No Kivy here: this module runs on worker threads.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger("builtin_plugins.folder_plugins.web")

BROWSER_ENV = "SVC_DISPLAY_BROWSER"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_SECONDS = 30.0  # hard limit of one browser run
LOAD_BUDGET_MS = 15000  # the browser gives up loading the page after this (its --timeout)
SCRIPT_BUDGET_MS = 3000  # virtual time the page's scripts get before the picture
MIN_REFRESH_SECONDS = 10.0  # one snapshot: 1.1-1.9 s, about 2 s of CPU (all its processes), 220 MB
MAX_SIDE = 8192
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# --headless is the same as --headless=new in current Chromium (checked with 156).
# --no-sandbox: Chromium refuses to start as root with its sandbox, and the
# display may run as root; the page is a plugin's own page, shown view-only.
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
    f"--timeout={LOAD_BUDGET_MS}", f"--virtual-time-budget={SCRIPT_BUDGET_MS}",
)
_NET_ERROR = re.compile(rb"Page load failed: (net::ERR_[A-Z_]+)")
_HOST = re.compile(r"^[A-Za-z0-9._:-]+$")


def find_browser(configured: str | None = None) -> str | None:
    """The browser to run: ``configured`` (the plugin's ``SVC_DISPLAY_BROWSER`` setting) if
    set, else the first one on ``PATH``."""
    if configured and configured.strip():
        return configured.strip()
    for name in BROWSER_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def shown_url(url: str) -> str:
    """``url`` for the log: without credentials, query or fragment (they may hold tokens)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparseable url>"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{port}{parts.path}"


def snapshot(url: str, size: tuple[int, int], *, browser: str | None = None, timeout: float = TIMEOUT_SECONDS,
             cancel: threading.Event | None = None, level: int = logging.WARNING) -> bytes | None:
    """A PNG of ``url`` at ``size`` pixels (width, height), or ``None`` (then one log line
    at ``level`` says why; never the page's content). ``cancel`` set: the browser is
    stopped at once and ``None`` returned without a log line."""
    width, height = (min(MAX_SIDE, max(1, int(v))) for v in size)
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host or not _HOST.match(host):
        log.log(level, "web snapshot of %s failed: not an http(s) URL with a host", shown_url(url))
        return None
    browser = browser or find_browser()
    if browser is None:
        log.log(level, "web snapshot of %s failed: no browser (install chromium or set %s)",
                shown_url(url), BROWSER_ENV)
        return None
    with tempfile.TemporaryDirectory(prefix="svc-display-web-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        shot, errors = work / "page.png", work / "browser.log"
        args = [browser, *FLAGS, f"--user-data-dir={work / 'profile'}", f"--window-size={width},{height}",
                f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {host}", f"--screenshot={shot}", url]
        started = time.monotonic()
        try:
            with open(errors, "wb") as err:
                process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                           stderr=err, cwd=tmp, start_new_session=True)
        except OSError as exc:
            log.log(level, "web snapshot of %s failed: cannot run %s: %s", shown_url(url), browser,
                    exc.strerror or exc)
            return None
        finished = _wait(process, started + timeout, cancel)
        _stop(process)
        if not finished:
            if cancel is None or not cancel.is_set():
                log.log(level, "web snapshot of %s failed: the browser took more than %.0f s",
                        shown_url(url), timeout)
            return None
        reason = _failure(process.returncode, errors, shot)
        if reason:
            log.log(level, "web snapshot of %s failed: %s", shown_url(url), reason)
            return None
        data = shot.read_bytes()
        log.debug("web snapshot of %s: %dx%d in %.1f s", shown_url(url), width, height,
                  time.monotonic() - started)
        return data


def _wait(process: subprocess.Popen, deadline: float, cancel: threading.Event | None) -> bool:
    """Whether the browser exited by itself before ``deadline`` and without ``cancel``."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (cancel is not None and cancel.is_set()):
            return False
        try:
            process.wait(timeout=min(0.1, remaining))
            return True
        except subprocess.TimeoutExpired:
            continue


def _stop(process: subprocess.Popen) -> None:
    """End the browser and every process it started (its own process group): SIGTERM lets
    it close its helpers; whatever is left after 2 s gets SIGKILL."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _failure(returncode: int, errors: Path, shot: Path) -> str:
    """Why the run gave no usable picture ('' when it did)."""
    try:
        with open(errors, "rb") as handle:
            handle.seek(max(0, errors.stat().st_size - 65536))
            tail = handle.read()
    except OSError:
        tail = b""
    found = _NET_ERROR.search(tail)
    if found:
        return f"the page did not load ({found.group(1).decode()})"
    if b"Page load timed out" in tail:
        return f"the page was still loading after {LOAD_BUDGET_MS // 1000} s"
    if returncode != 0:
        return f"the browser exited with status {returncode}"
    try:
        with open(shot, "rb") as handle:
            magic = handle.read(len(PNG_MAGIC))
    except OSError:
        return "the browser wrote no screenshot"
    return "" if magic == PNG_MAGIC else "the screenshot is not a PNG"


class PeriodicSnapshot:
    """Takes the snapshot on a background thread: at once when ``immediately``, then every
    ``period`` seconds (at least :data:`MIN_REFRESH_SECONDS`) after the previous one
    finished, or never again when ``period`` is ``None``. At most one browser at a time.

    Driven from the UI thread: :meth:`tick` counts time, starts the next snapshot when due
    and returns the newest PNG once (``None`` otherwise). :meth:`dispose` stops the browser
    if one runs and waits for its thread. A failure is logged as a warning once; repeated
    failures log at debug level until a snapshot succeeds again.
    """

    def __init__(self, url: str, size: tuple[int, int], period: float | None, failing: bool = False,
                 immediately: bool = False, browser: str | None = None, timeout: float = TIMEOUT_SECONDS):
        self.url, self.size, self.browser, self.timeout = url, size, browser, timeout
        self.period = None if period is None else max(MIN_REFRESH_SECONDS, float(period))
        self.failing = failing
        self.elapsed = float("inf") if immediately else 0.0
        self.taken = 0
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._pending: bytes | None = None
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def tick(self, dt: float) -> bytes | None:
        with self._lock:
            data, self._pending = self._pending, None
        if self._cancel.is_set() or self.busy or (self.period is None and self.taken):
            return data
        self.elapsed += dt
        if self.elapsed >= (self.period or 0.0):
            self.elapsed = 0.0
            self.taken += 1
            self._thread = threading.Thread(target=self._run, name="web-snapshot", daemon=True)
            self._thread.start()
        return data

    def _run(self) -> None:
        data = snapshot(self.url, self.size, browser=find_browser(self.browser), timeout=self.timeout,
                        cancel=self._cancel, level=logging.DEBUG if self.failing else logging.WARNING)
        self.failing = data is None
        if data is not None and not self._cancel.is_set():
            with self._lock:
                self._pending = data

    def dispose(self, wait: float = 5.0) -> None:
        self._cancel.set()
        thread = self._thread
        if thread is not None:
            thread.join(wait)
