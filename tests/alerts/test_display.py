"""The ``alerts`` slide (``builtin_plugins/alerts/display.py``): it asks the alerts service, the one
owner of what is active, and nothing else (it works with ``display_program`` disabled); the alerts
layer's card on the real canvas (:mod:`tests.alerts.screens`): a long body shown whole."""
from __future__ import annotations

import pytest
from pony import orm

from hookspecs.render import TYPE_MIN, TYPE_SCALE, Rect
from svc_display.testing.clock import advance_clock
from tests.display.driven import run
from tests.display.layers import prepare
from hookspecs.services import ALERTS, ALERT_SEVERITIES


def test_the_alerts_slide_offers_the_severities_of_the_alerts_service():
    from builtin_plugins.alerts import TYPES

    (slide,) = TYPES.screen_types  # types.json writes the list out: it must stay the service's
    min_severity = slide.config_schema["properties"]["minSeverity"]
    assert min_severity["enum"] == list(ALERT_SEVERITIES)
    assert list(min_severity["x-enum-titles"]) == list(ALERT_SEVERITIES)  # each one in words


def test_the_alerts_slide_shows_what_the_alerts_service_calls_active(make_host, env):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "display_program"})
    alerts = host.services[ALERTS]
    assert prepare(host, "screen", "alerts", {"id": "a", "config_json": {}}) is None  # nothing active: skipped
    with orm.db_session:
        alerts.raise_alert(title="low", body="", severity="info", source="api")
        alerts.raise_alert(title="high", body="now", severity="critical", source="ops", priority=5)
        alerts.raise_alert(title="higher", body="", severity="critical", source="ops", priority=9)
        gone = alerts.raise_alert(title="dismissed", body="", severity="critical", source="ops", priority=99)
        alerts.raise_alert(title="expiring", body="", severity="warning", source="api",
                           expires_at_ms=host.clock.now_ms() + 1000)
        alerts.dismiss(gone)
    shown = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"minSeverity": "warning"}})
    assert [a["title"] for a in shown] == ["higher", "high", "expiring"]  # most severe, then by priority
    assert shown[1] == {"title": "high", "body": "now", "severity": "critical"}
    only_ops = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"sources": ["ops"], "maxAlerts": 1}})
    assert [a["title"] for a in only_ops] == ["higher"]
    assert prepare(host, "screen", "alerts", {"id": "a", "config_json": {"sources": ["nobody"]}}) is None
    advance_clock(env, 2000)
    shown = prepare(host, "screen", "alerts", {"id": "a", "config_json": {"minSeverity": "warning"}})
    assert "expiring" not in [a["title"] for a in shown]  # the service's expiry, not a copy of it


SENTENCE = ("The north entrance is closed for repairs until Friday; please use the garden door beside the "
            "bicycle racks, where a colleague will sign you in. ")
LONG_BODY = (SENTENCE * 8).strip()  # 1,000 characters, well past the card's part for its body


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1920, 1080), (1080, 1920)], ids=["landscape", "portrait"])
def test_a_long_alert_body_is_shown_whole_and_scrolls_up_through_its_box(env, tmp_path, size):
    """The text rule on an alert card (docs/display.md, "The text rule"): a body longer than its part of
    the card is stored whole and shown whole (its text the whole body, every word of it on the lines
    drawn, none broken), at no less than the body's minimum; the part drawn stays inside its box, which
    stays inside the card; and over frame time it moves up from its first line to its last and starts
    over. The card used to cut the body at 400 characters, mid-word, and draw the rest below its box."""
    alert = {"title": "North entrance closed", "body": LONG_BODY, "severity": "warning"}
    seen = run(env, {"scenario": "tests.alerts.screens:long_body", "size": list(size), "alert": alert,
                     "frames": 120, "dt": 5.0}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    assert seen["text"] == LONG_BODY, seen["text"][-80:]
    assert " ".join(seen["lines"]).split() == LONG_BODY.split(), seen["lines"]
    assert seen["font_px"] >= TYPE_MIN["body"] * min(size) / 1080 - 0.01 and seen["font_px"] == seen["minimum"]
    card, box, window = (Rect(*seen[name]) for name in ("card", "box", "window"))
    assert seen["scrolls"] and seen["travel"] > 0 and seen["texture"][1] > box.height, seen
    for outer, inner in ((box, window), (card, box)):
        assert inner.x >= outer.x - 1 and inner.y >= outer.y - 1 and inner.right <= outer.right + 1 \
            and inner.top <= outer.top + 1, (outer, inner)
    offsets = seen["offsets"]
    assert offsets[0] < offsets[1] < offsets[2] and max(offsets) == seen["travel"], (offsets, seen["travel"])
    assert 0 in offsets[offsets.index(seen["travel"]):], offsets  # read through, then from its start again


@pytest.mark.slow
@pytest.mark.parametrize("severity, icon", [("warning", "warning"), ("info", "info")])
def test_an_alert_is_a_band_in_its_severitys_colour_with_its_icon_and_body_size_text(env, tmp_path, severity, icon):
    """Issue 35: the warning alert was a dark card with small text. The card is now filled with its
    severity's colour, carries the severity's icon, and its title and body are at the body step (56 px
    at 1080 lines) in black or white, whichever reads on that colour (4.5:1 at least)."""
    from builtin_plugins.alerts.display import SEVERITY_COLORS
    from svc_host.kit.contrast import contrast_ratio

    alert = {"title": "Storm warning", "body": "Terrace closed this afternoon.", "severity": severity}
    seen = run(env, {"scenario": "tests.alerts.screens:band", "size": [1920, 1080], "alert": alert}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    assert seen["fills"] == [list(SEVERITY_COLORS[severity])], seen["fills"]
    assert seen["icons"] == [icon]
    assert [t["text"] for t in seen["texts"]] == [alert["title"], alert["body"]]
    for text in seen["texts"]:
        assert text["font_px"] >= TYPE_SCALE["body"] - 0.5, text
        assert contrast_ratio(text["color"], SEVERITY_COLORS[severity]) >= 4.5, text
