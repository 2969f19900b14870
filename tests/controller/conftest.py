"""The controller tests' fixtures: ``module_database_url`` runs a storage module on SQLite and again
on PostgreSQL (a database of its own), honouring ``SVC_TEST_BACKENDS`` like the root conftest.
The processes (``ControllerProcess``, ``start_display``, ...) are in tests/controllers.py, shared
with tests/webapp and benchmarks/."""
from __future__ import annotations

from typing import Iterator

import pytest

from svc_display.testing import backends
from svc_display.testing.databases import throwaway_pg_database


@pytest.fixture(scope="module", params=backends(storage=True))
def module_database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """None for SQLite; else a PostgreSQL database made for this module (both for storage modules)."""
    if request.param == "sqlite":
        yield None
        return
    with throwaway_pg_database("svc_c_") as url:
        yield url
