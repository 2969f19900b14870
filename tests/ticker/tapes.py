"""Helpers of the ticker tape tests (the ticker domain's and the features' tapes): the ``ticker``
fixture and its time (the root conftest lists this module in ``pytest_plugins``), tapes created
over HTTP, the item snapshot, key-values."""
import datetime as dt

import pytest
from pony import orm

from svc_display.testing.clock import FixedClock

# 2026-03-08 14:05:09 UTC: New York has just switched to EDT (UTC-4), Auckland is on NZDT (UTC+13).
NOW = dt.datetime(2026, 3, 8, 14, 5, 9, tzinfo=dt.timezone.utc)


@pytest.fixture
def ticker(api):
    """``api`` on a host whose clock stands still at :data:`NOW`."""
    api.host.clock = FixedClock(NOW)
    return api


def _items(api):
    result = api.get("/v1/ticker/items")
    assert result.status_code == 200, result.text
    items = result.json["items"]
    assert [i["ordinal"] for i in items] == list(range(len(items)))
    return items


def _kv(host, key, value):
    with orm.db_session:
        row = host.db.KeyValue.get(key=key)
        if row is None:
            host.db.KeyValue(key=key, value=value)
        else:
            row.value = value


def _tape(api, tape_id, ticker_type, config=None, **extra):
    body = {"id": tape_id, "ticker_type": ticker_type, "config_json": config or {}, **extra}
    result = api.post("/v1/ticker/tapes", json=body)
    assert result.status_code == 201, result.text
