"""Every builtin collector against a failing upstream: 500, timeout, malformed, oversized, redirect loop.

Each fault must end the run as a failure (never an exception out of the engine), show in
telemetry under the collector's integration_type, back the integration off, and leave the
host answering.
"""

from __future__ import annotations

import pytest
from pony import orm

from tests.integrations.conftest import fast_limits
from tests.integrations.fault_setups import SETUPS
from tests.integrations.upstream import FAULTS


def test_every_builtin_collector_has_a_fault_setup(host):
    builtin = {
        type_id
        for type_id, owner in host.registries.integration_types.owner.items()
        if host.plugins.info[owner].builtin
    }
    assert builtin == set(SETUPS)


@pytest.mark.parametrize("type_id", sorted(SETUPS))
def test_faults_are_contained_reported_and_backed_off(type_id, host, api, upstream):
    engine = fast_limits(host)
    upstream.slow_seconds = 2.0
    SETUPS[type_id](host, upstream)
    telemetry = host.services["integration_telemetry"]
    for kind in FAULTS:
        upstream.fault(kind)
        with orm.db_session:
            host.db.Integration[type_id].set(consecutive_failures=0, next_retry_at=None)
            for feed in host.db.RssFeed.select():
                feed.set(consecutive_failures=0, next_retry_at=None)
        before = len(upstream.requests)
        since = host.clock.now_ms()
        result = engine.run_now(type_id)
        assert len(upstream.requests) > before, f"{type_id} sent nothing to the upstream ({kind})"
        assert result.status == "failed", (kind, result)
        with orm.db_session:
            row = host.db.Integration[type_id]
            assert row.consecutive_failures == 1, kind
            assert row.next_retry_at > host.clock.now_ms(), kind
            assert row.last_error, kind
        errors = [
            line
            for line in telemetry.lines(2000, since)
            if line["channel"] == "error" and line.get("integration_type") == type_id
        ]
        assert errors, (kind, telemetry.lines(20))
        assert api.get("/v1/health").status_code == 200
        assert api.get("/v1/integrations").status_code == 200
