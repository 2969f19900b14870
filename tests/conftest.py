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

No test module imports this file; shared test-only helpers live in modules of their own.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import pytest

from svc_display.testing import ApiClient, ServerProcess, issue_key

pytest_plugins = ("tests.examples.plugins", "tests.ticker.tapes")


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
