"""Fixtures of the integrations tests: an upstream server on loopback, fast engine limits."""
from __future__ import annotations

from typing import Any

import pytest

from tests.integrations.upstream import Upstream


@pytest.fixture
def upstream():
    server = Upstream().start()
    yield server
    server.stop()


def fast_limits(host: Any, run_timeout: float = 5.0) -> Any:
    """Short timeouts and a small size cap so fault tests finish quickly."""
    engine = host.services["integrations"]
    engine.run_timeout = run_timeout
    engine.http.connect_timeout = 1.0
    engine.http.read_timeout = 0.5
    engine.http.total_timeout = 3.0
    engine.http.max_bytes = 64 * 1024
    return engine


@pytest.fixture
def api_for():
    """An admin :class:`tests.conftest.Api` for a host built in the test."""
    from tests.conftest import Api, issue_key

    def factory(host: Any, role: str = "admin") -> Any:
        return Api(host, issue_key(host, role))

    return factory
