"""The collector engine: rows, isolated runs, timeouts, backoff, the schedule."""

from __future__ import annotations

import logging

from pony import orm

from builtin_plugins.integrations.engine import BACKOFF_CAP_SECONDS, backoff_ms
from svc_host.config import load_settings
from svc_host.host import build_host
from svc_display.testing.clock import advance_clock
from tests.integrations.conftest import fast_limits
from tests.integrations.probes import Probes
from tests.integrations.upstream import wait_for
from hookspecs.services import INTEGRATIONS, INTEGRATION_TELEMETRY


def _row(host, integration_id):
    with orm.db_session:
        row = host.db.Integration[integration_id]
        return row.to_dict()


def test_every_type_gets_a_disabled_row(make_host):
    host = make_host(plugins=[("probes", Probes())])
    types = set(host.registries.integration_types.types)
    with orm.db_session:
        rows = {row.id: row for row in host.db.Integration.select()}
        assert types <= set(rows)
        assert all(not rows[t].enabled for t in types)
        assert rows["general_probe"].config_json == {"text": "hello"}


def test_run_now_upserts_and_reports(make_host):
    probes = Probes()
    host = make_host(plugins=[("probes", probes)])
    engine = host.services[INTEGRATIONS]
    result = engine.run_now("general_probe")
    assert result.status == "ok", result
    again = engine.run_now("general_probe")
    assert again.status == "ok"
    with orm.db_session:
        quotes = list(host.db.Quote.select())
        assert [(q.id, q.text, q.integration_type) for q in quotes] == [
            ("general_probe:1", "hello", "general_probe")
        ]
    row = _row(host, "general_probe")
    assert row["consecutive_failures"] == 0 and row["next_retry_at"] is None
    assert row["last_success_at_ms"] is not None
    lines = host.services[INTEGRATION_TELEMETRY].lines()
    assert any(
        line.get("integration_type") == "general_probe" and line["channel"] == "info" for line in lines
    )
    engine_lines = [line for line in lines if "integration_type" not in line]
    assert engine_lines and engine_lines[0]["message"].startswith("engine started")


def test_failure_backs_off_and_scheduled_runs_wait(make_host, env):
    host = make_host(plugins=[("probes", Probes())])
    engine = host.services[INTEGRATIONS]
    first = engine.run_now("general_broken")
    assert first.status == "failed" and "probe failure" in first.message
    row = _row(host, "general_broken")
    now = host.clock.now_ms()
    assert row["consecutive_failures"] == 1
    assert now < row["next_retry_at"] <= now + BACKOFF_CAP_SECONDS * 1000
    with orm.db_session:
        host.db.Integration["general_broken"].enabled = True
    skipped = engine.run_now("general_broken", force=False)
    assert skipped.status == "skipped" and "backing off" in skipped.message
    assert _row(host, "general_broken")["consecutive_failures"] == 1
    advance_clock(env, row["next_retry_at"] - now + 1)
    second = engine.run_now("general_broken", force=False)
    assert second.status == "failed"
    assert _row(host, "general_broken")["consecutive_failures"] == 2
    errors = [line for line in host.services[INTEGRATION_TELEMETRY].lines() if line["channel"] == "error"]
    assert len(errors) == 2 and all(line["integration_type"] == "general_broken" for line in errors)


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    import random

    rng = random.Random(7)
    for failures in range(1, 12):
        delay = backoff_ms(failures, 60, rng) / 1000
        full = min(BACKOFF_CAP_SECONDS, 60 * 2**failures)
        assert full / 2 <= delay <= full
    draws = {backoff_ms(3, 60, rng) for _ in range(20)}
    assert len(draws) > 1  # jitter


def test_a_stuck_collector_is_abandoned_and_blocks_only_itself(make_host, api_for):
    probes = Probes()
    host = make_host(plugins=[("probes", probes)])
    engine = fast_limits(host, run_timeout=0.5)
    try:
        result = engine.run_now("general_stuck")
        assert result.status == "timeout"
        row = _row(host, "general_stuck")
        assert row["consecutive_failures"] == 1 and row["next_retry_at"] > host.clock.now_ms()
        assert engine.run_now("general_stuck").status == "busy"  # its thread has not ended yet
        assert engine.run_now("general_probe").status == "ok"  # others still run
        api = api_for(host)
        assert api.get("/v1/health").status_code == 200
        assert api.get("/v1/integrations").status_code == 200
    finally:
        probes.release.set()
    wait_for(lambda: "general_stuck" not in engine._runs)
    lines = host.services[INTEGRATION_TELEMETRY].lines()
    assert any(
        "timed out" in line["message"] for line in lines if line.get("integration_type") == "general_stuck"
    )


def test_the_schedule_runs_enabled_integrations_repeatedly(make_host, api_for):
    probes = Probes()
    host = make_host(plugins=[("probes", probes)])
    engine = host.services[INTEGRATIONS]
    assert engine.running
    with orm.db_session:
        host.db.Integration["general_probe"].poll_seconds = 1
    response = api_for(host).patch("/v1/integrations/general_probe", json={"enabled": True})
    assert response.status_code == 200, response.text
    wait_for(lambda: len(probes.calls) >= 2)
    assert all(call["force"] is False for call in probes.calls)
    api_for(host).patch("/v1/integrations/general_probe", json={"enabled": False})
    assert not engine.scheduler.get_jobs("general_probe")


def test_no_scheduler_outside_serve(env):
    host = build_host(load_settings(env), with_routes=False)
    try:
        assert host.services[INTEGRATIONS].running is False
    finally:
        host.close()


def test_a_collector_exception_is_logged_without_crashing(make_host, caplog):
    host = make_host(plugins=[("probes", Probes())])
    with caplog.at_level(logging.WARNING):
        assert host.services[INTEGRATIONS].run_now("general_broken").status == "failed"
    assert host.services[INTEGRATIONS].running


def test_run_now_joins_a_scheduled_run_already_under_way(make_host):
    """An operator who asks for a run while the schedule's run of the same integration is going
    gets that run's answer, not 'busy' (the plugin tutorial's run raced the first scheduled run
    and failed CI on it)."""
    import threading

    probes = Probes()
    host = make_host(plugins=[("probes", probes)])
    engine = host.services[INTEGRATIONS]
    with orm.db_session:
        host.db.Integration["general_stuck"].enabled = True
    engine.submit("general_stuck")  # as the schedule does
    wait_for(lambda: probes.calls == [{"stuck": True}])
    answers = []
    asking = threading.Thread(target=lambda: answers.append(engine.run_now("general_stuck")))
    asking.start()
    wait_for(lambda: asking.is_alive())
    probes.release.set()
    asking.join(30)
    assert [(answer.status, answer.message) for answer in answers] == [("ok", "done")]
    assert probes.calls == [{"stuck": True}]  # one run, shared
    assert _row(host, "general_stuck")["last_success_at_ms"] is not None


def test_a_collector_without_its_secret_or_setting_fails_saying_which(make_host, api_for):
    """``ctx.secret(name)`` and ``ctx.setting(key, what)``: one wording for every collector that
    needs a key or a setting the operator has not given (finnhub, Home Assistant, ...)."""
    host = make_host()
    api = api_for(host)
    engine = host.services[INTEGRATIONS]
    finnhub = engine.run_now("stock_finnhub")
    assert (finnhub.status, finnhub.message) == ("failed", "the apiKey secret is not configured")
    assert api.patch("/v1/integrations/home_assistant", json={"secrets": {"token": "t0ken"}}).status_code == 200
    home = engine.run_now("home_assistant")
    assert (home.status, home.message) == ("failed", "config_json.baseUrl (the Home Assistant URL) is not set")
    assert api.get("/v1/integrations/stock_finnhub").json["last_error"] == "the apiKey secret is not configured"
