"""Fixtures of the integrations tests: an upstream server on loopback, fast engine limits."""

from __future__ import annotations

from typing import Any

import keyring
import pytest
from jaraco.classes import properties
from keyring.backend import KeyringBackend
from hookspecs.services import INTEGRATIONS



def fast_limits(host: Any, run_timeout: float = 5.0) -> Any:
    """Short timeouts and a small size cap so fault tests finish quickly."""
    engine = host.services[INTEGRATIONS]
    engine.run_timeout = run_timeout
    engine.http.connect_timeout = 1.0
    engine.http.read_timeout = 0.5
    engine.http.total_timeout = 3.0
    engine.http.max_bytes = 64 * 1024
    return engine


@pytest.fixture
def api_for(svc_display_api: Any) -> Any:
    """``factory(host, role="admin")``: the kit's ``svc_display_api``, for a host built in the test."""
    return svc_display_api


class MemoryKeyring(KeyringBackend):
    """An in-memory OS secret store, installed only by the fixture (never auto-selected)."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805
        raise RuntimeError("test backend: only used when set explicitly")

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.values.pop((service, username), None)


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
