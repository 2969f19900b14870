"""Suite-wide wiring only: the fixtures themselves are the plugin authors' kit's
(``svc_display.testing``, loaded as a pytest plugin), so the suite tests what authors use.

- The suite's short names for the kit's fixtures: ``backend`` (``svc_display_backend``: SQLite,
  and PostgreSQL again for tests marked ``svc_display_storage``; ``SVC_TEST_BACKENDS``),
  ``env`` (``svc_display_env`` with the suite's data dir and log level), ``make_host``
  (``svc_display_host``, not strict: a test plugin the host skips is what some tests check),
  ``host``, ``api`` (an admin ``ApiClient``), ``start_server`` (``svc_display_server``),
  ``upstream`` (``svc_display_upstream``). Clocks: ``svc_display_clock`` and
  ``svc_display.testing.clock`` (``advance_clock``, ``FixedClock``).
- Fixture modules shared across folders (``pytest_plugins``).
- The order: modules heaviest first by ``tests/module_seconds.json`` (``tests/module_seconds.py``),
  so ``make test``'s workers start the long modules first and end together.
- The tiers (docs/testing.md): a test that starts a process (a server, a CLI, a canvas, a
  browser, an X server), seen in its code, its fixtures' or its helpers', is marked ``process``;
  ``make check`` runs the rest (``-m "not process and not slow"``) with ``SVC_CHECK=1``, under
  which a test starting one of those programs fails (so a test the marking missed is found).

No test module imports this file; shared test-only helpers live in modules of their own.
"""
from __future__ import annotations

import gc
import inspect
import linecache
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest

from svc_display.testing import ApiClient, ServerProcess, issue_key
from tests import module_seconds

pytest_plugins = ("tests.examples.plugins", "tests.ticker.tapes")

# What code that starts a process says (a server, the CLI, a canvas child, Chromium, Xvfb).
STARTS_PROCESS = re.compile(r"\bsubprocess\b|Popen|\w*Process\(|start_server|svc_display_server"
                            r"|svc_display_frame|render_frame|svc_display_canvas_check|check_on_canvas"
                            r"|playwright|\bxvfb\b|Xvfb|canvas_process|\bcli\(|\bforkserver\b")
# Product modules whose functions start a program when called (Chromium, sidecars, canvas children).
PROCESS_MODULES = ("builtin_plugins.folder_plugins.web_snapshot", "builtin_plugins.folder_plugins.supervisor",
                   "svc_host.display.scenes")


def _source(obj: Any) -> str | None:
    """``obj``'s source (a function's from its first decorator to the end of its last statement),
    or None. A function's lines come from its code's positions: ``inspect.getsource`` tokenizes
    the file from the function on to find where it ends, 1.5 s of each worker's collection for the
    suite's 1,600 functions."""
    function = inspect.unwrap(obj) if inspect.isfunction(obj) else None
    code = getattr(function, "__code__", None)
    if code is None:
        try:
            return inspect.getsource(obj)
        except (OSError, TypeError):
            return None
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    last, codes = code.co_firstlineno, [code]
    while codes:  # the function's and every nested code's (lambdas, comprehensions, inner functions)
        each = codes.pop()
        last = max([last, *(end for _line, end, _col, _end_col in each.co_positions() if end)])
        codes.extend(const for const in each.co_consts if inspect.iscode(const))
    return "".join(lines[code.co_firstlineno - 1:last])


def _says_process(obj: Any, seen: dict[Any, bool], depth: int = 0) -> bool:
    """Whether ``obj``'s code (a test, fixture, function or class) starts a process, or the test
    helpers it calls (functions and classes of ``tests.*`` modules) do."""
    if obj in seen:
        return seen[obj]
    seen[obj] = False  # (a cycle says no)
    if inspect.isclass(obj) and any(base.__name__.endswith("Process") for base in obj.__mro__):
        seen[obj] = True  # a ServerProcess, ControllerProcess...
        return True
    source = _source(obj)
    if source is None:
        return False
    if STARTS_PROCESS.search(source):
        seen[obj] = True
        return True
    code = getattr(obj, "__code__", None)
    names = [*code.co_names, *(name for const in code.co_consts if inspect.iscode(const)
                               for name in const.co_names)] if code else ()
    for value in (getattr(obj, "__globals__", {}).get(name) for name in names):
        module = getattr(value, "__module__", None) or ""
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue
        if module in PROCESS_MODULES or (module.startswith("tests.") and depth < 4
                                         and _says_process(value, seen, depth + 1)):
            seen[obj] = True
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "process: starts a process (server, CLI, canvas, browser, X server): "
                                       "not in make check (set by tests/conftest.py)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``process`` the tests whose code, fixtures or helpers start processes; then order the
    modules heaviest first (:mod:`tests.module_seconds`)."""
    seen: dict[Any, bool] = {}
    for item in items:
        function = getattr(item, "function", None)
        starts = function is not None and _says_process(function, seen)
        for name in item.fixturenames if not starts else ():
            for fixturedef in item._fixtureinfo.name2fixturedefs.get(name, ()):
                if _says_process(fixturedef.func, seen):
                    starts = True
                    break
            if starts:
                break
        if starts:
            item.add_marker(pytest.mark.process)
    # heaviest modules first (a stable sort: each module's own order, its backends' grouping, stays)
    weight = module_seconds.weigher(module_seconds.load())
    items.sort(key=lambda item: -weight(item.nodeid.split("::", 1)[0]))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (the items, their fixtures' definitions, every imported module) lives
    until the run ends: moved out of the garbage collector's way (``gc.freeze``), each full
    collection walks only what tests make. Host builds make many cycles, so full collections are
    frequent; ``tests/host -m "not process and not slow"`` without xdist, back to back at load 7:
    their time 10.4 -> 3.0 s, the run 84 -> 61 s."""
    gc.freeze()


# The programs make check does not start: Python (servers, the CLI, canvas children), the
# browser and its driver, X servers. (A host asks git for its version: a tool, allowed.)
HEAVY_PROGRAMS = re.compile(r"python|svc-display|svc-controller|chrom|node|playwright|Xvfb|xwininfo", re.I)

if os.environ.get("SVC_CHECK") == "1":  # make check: a process started by a test fails it
    _popen_init = subprocess.Popen.__init__
    _in_test = False

    def _refuse_in_tests(self: subprocess.Popen, args: Any, *rest: Any, **kwargs: Any) -> None:
        program = os.path.basename(str(args if isinstance(args, (str, bytes, os.PathLike)) else args[0]))
        if _in_test and HEAVY_PROGRAMS.search(program):
            raise RuntimeError(f"make check starts no processes ({args!r}): tests/conftest.py's "
                               "STARTS_PROCESS should have marked this test `process`")
        _popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = _refuse_in_tests  # type: ignore[method-assign]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Any:
        global _in_test
        _in_test = True
        try:
            yield
        finally:
            _in_test = False


@pytest.fixture
def backend(svc_display_backend: str) -> str:
    return svc_display_backend


@pytest.fixture
def env(svc_display_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The kit's environment (the same dict, so the kit's fixtures see the same host data)."""
    svc_display_env.update({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_LOG_LEVEL": "INFO"})
    return svc_display_env


@pytest.fixture
def make_host(env: dict[str, str], svc_display_host: Callable[..., Any]) -> Callable[..., Any]:
    """``factory(extra_env=None, plugins=[(name, plugin)])``: ``svc_display_host``, not strict."""

    def factory(extra_env: dict[str, str] | None = None, plugins: Iterable[tuple[str, Any]] = ()) -> Any:
        return svc_display_host(plugins=plugins, env=extra_env, strict=False)

    return factory


@pytest.fixture
def host(make_host: Callable[..., Any]) -> Any:
    return make_host()


@pytest.fixture
def api(host: Any) -> ApiClient:
    return ApiClient(host, issue_key(host, "admin", "test-admin"))


@pytest.fixture
def start_server(env: dict[str, str], svc_display_server: Callable[..., ServerProcess]):
    """``factory(extra_env=None, extra_pythonpath=())``: ``svc_display_server``."""

    def factory(extra_env: dict[str, str] | None = None, extra_pythonpath: Iterable[str] = ()) -> ServerProcess:
        return svc_display_server(env=extra_env, pythonpath=extra_pythonpath)

    return factory


@pytest.fixture
def upstream(svc_display_upstream: Any) -> Any:
    return svc_display_upstream
