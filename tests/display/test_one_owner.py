"""One owner per rule: the REST side and the canvas give the same answer on the same input.

Each test feeds one input to both surfaces (the REST route or service the API serves from,
and the canvas code: what a layer loads, a renderer's context) and compares. Each failed
before the canvas asked the owner instead of re-implementing the rule.
"""
import datetime as dt

import pytest
from pony import orm

from hookspecs.render import RenderContext, theme_from_preview
from hookspecs.services import ADOPTION, ALERTS, CURATOR, OVERLAYS, SETTINGS, THEMES, TICKER
from svc_host.kit.services import display_zone, preferences
from tests.display.layers import renderer, shown
from svc_display.testing.clock import FixedClock
from svc_host.kit.formatting import formats

pytestmark = pytest.mark.svc_display_storage


def at(host, *when):
    host.clock = FixedClock(dt.datetime(*when, tzinfo=dt.timezone.utc))


def overlay(api, **body):
    body = {"overlay_type": "bouncing_message", "start_month": 5, "start_day": 13, **body}
    result = api.post("/v1/display/overlays", json=body)
    assert result.status_code == 200, result.text
    return result.json["id"]


def both_surfaces(api):
    """(ids the overlays service calls active, ids the canvas's overlays layer draws)."""
    host = api.host
    service_ids = sorted(row["id"] for row in host.services[OVERLAYS].active())
    canvas_ids = sorted(row["id"] for row in shown(host, "overlays").rows)
    return service_ids, canvas_ids


def test_a_non_repeating_overlay_made_in_2024_is_not_shown_in_2026_anywhere(api):
    row_id = overlay(api, id="once", repeat_annually=False)
    with orm.db_session:
        api.host.db.OverlaySchedule[row_id].created_at_ms = int(dt.datetime(2024, 3, 1).timestamp() * 1000)
    at(api.host, 2026, 5, 13, 12)
    assert both_surfaces(api) == ([], [])
    at(api.host, 2024, 5, 13, 12)
    assert both_surfaces(api) == (["once"], ["once"])


def test_a_february_29_window_agrees_in_a_year_without_it(api):
    overlay(api, id="leap", start_month=2, start_day=29, repeat_annually=True)
    at(api.host, 2027, 2, 28, 12)
    service_ids, canvas_ids = both_surfaces(api)
    assert service_ids == canvas_ids == ["leap"]  # February 29 counts as February 28 (overlays/schedule.py)


@pytest.mark.parametrize("value, shown", [("0", False), ("off", False), ("no", False), ("false", False),
                                          ("OFF", False), ("true", True), ("1", True)])
def test_the_global_overlay_switch_hides_overlays_on_both_surfaces(api, value, shown):
    overlay(api, id="sw")
    at(api.host, 2026, 5, 13, 12)
    result = api.put("/v1/config/key-values", json={"key": "display.overlay.enabled", "value": value})
    assert result.status_code == 200, result.text
    expected = ["sw"] if shown else []
    assert both_surfaces(api) == (expected, expected)


def ticker_items(api):
    result = api.get("/v1/ticker/items")
    assert result.status_code == 200, result.text
    return [item["body"] for item in result.json["items"]]


def test_the_dmy_date_is_written_the_same_by_the_ticker_and_the_clock_slide(api):
    at(api.host, 2026, 5, 13, 14, 5)
    result = api.post("/v1/ticker/tapes", json={"id": "t", "ticker_type": "time",
                                                "config_json": {"dateOrder": "dmy", "timeFormatPreset": "24h_hm",
                                                                "timeZone": "UTC"}})
    assert result.status_code == 201, result.text
    rest = ticker_items(api)[0]
    canvas = formats(RenderContext(api.host, "screen", "clock", {}, date_order="dmy"))
    now = canvas.now("UTC")
    assert rest == f"{canvas.format_date(now)} {canvas.format_preset(now, '24h_hm')}" == "13/05/2026 14:05"


@pytest.mark.parametrize("celsius, unit, text", [(22.5, "c", "23°C"), (-2.5, "c", "-3°C"), (21.4, "c", "21°C"),
                                                 (-0.4, "c", "0°C"), (25.0, "f", "77°F"), (22.5, "f", "73°F")])
def test_a_temperature_rounds_the_same_on_the_ticker_and_the_weather_slide(api, celsius, unit, text):
    with orm.db_session:
        api.host.db.WeatherCurrent(location_id="home", location_name="Home", description="", temp_c=celsius,
                                   integration_type="weather_openmeteo")
        api.host.services[SETTINGS].set("display_weather_temperature_unit", unit)
    result = api.post("/v1/ticker/tapes", json={"id": "w", "ticker_type": "weather",
                                                "config_json": {"locationId": "home"}})
    assert result.status_code == 201, result.text
    assert ticker_items(api) == [f"Home: {text}"]
    context = RenderContext(api.host, "screen", "weather_current", {"config_json": {"locationId": "home"}},
                            temperature_unit=unit)
    with orm.db_session:
        data = renderer(api.host, "screen", "weather_current").prepare(context)
    assert formats(context).format_temperature(data["temp_c"]) == text  # what the weather slide draws


def builtin_previews(api):
    listing = api.get("/v1/display/themes")
    assert listing.status_code == 200, listing.text
    themes = listing.json if isinstance(listing.json, list) else listing.json.get("items") or listing.json["themes"]
    return {t["id"]: t["preview"] for t in themes}


def test_the_canvas_theme_is_the_themes_plugin_preview(api):
    previews = builtin_previews(api)
    assert "navy_coral" in previews
    for theme_id, preview in previews.items():
        result = api.put("/v1/display/settings", json={"display_theme_id": theme_id})
        assert result.status_code == 200, result.text
        assert preferences(api.host).theme == theme_from_preview(theme_id, preview)


def test_without_the_settings_plugin_the_canvas_falls_back_to_its_default_theme(api, make_host):
    preview = builtin_previews(api)["navy_coral"]
    bare = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "settings"})
    assert THEMES not in bare.services
    assert preferences(bare).theme == theme_from_preview("navy_coral", preview)


def test_every_reader_of_the_display_timezone_agrees(api):
    from builtin_plugins.calendar.store import display_zone as calendar_zone

    result = api.put("/v1/display/settings", json={"display_timezone": "Asia/Kolkata"})
    assert result.status_code == 200, result.text
    at(api.host, 2026, 5, 13, 20, 0)  # 01:30 on May 14 in Kolkata

    class Ctx:
        host = api.host

    zones = {display_zone(api.host).key, calendar_zone(Ctx()).key, preferences(api.host).timezone,
             api.host.services[CURATOR].active_view()["timezone"]}
    assert zones == {"Asia/Kolkata"}
    assert ticker_time(api) == "14/05/2026 01:30"


def ticker_time(api):
    result = api.post("/v1/ticker/tapes", json={"id": "clock", "ticker_type": "time",
                                                "config_json": {"dateOrder": "dmy", "timeFormatPreset": "24h_hm"}})
    assert result.status_code == 201, result.text
    return ticker_items(api)[0]


@pytest.mark.parametrize("weights, order", [((3, 1), "abaa"), ((1, 1), "ab"), ((2.5, 0.2), "abaa"),
                                            ((0, 2), "bb"), ((12, 1), "abaaaaaaaaa")])  # spread_cycle's order
def test_a_tapes_weight_means_repeats_per_cycle_on_the_api_and_the_marquee(api, weights, order):
    for tape_id, weight in zip("ab", weights):
        result = api.post("/v1/ticker/tapes", json={"id": tape_id, "ticker_type": "text", "frequency_weight": weight,
                                                    "sort_order": ord(tape_id), "config_json": {"text": tape_id}})
        assert result.status_code == 201, result.text
    rest = "".join(ticker_items(api))
    tapes = shown(api.host, "marquee").tapes  # what the marquee layer cycles through
    marquee = "".join(tape["id"] for tape in api.host.services[TICKER].cycle(tapes))
    assert rest == marquee == order


def test_an_adoption_challenge_is_drawn_by_the_adoption_layer_only(make_host):
    with_alerts = make_host()
    with orm.db_session:
        with_alerts.services[ADOPTION].create("tablet", "viewer")
    stored = [a for a in with_alerts.services[ALERTS].active() if a.get("source") == "adoption"]
    assert len(stored) == 1  # the alert the API lists, names the layer that draws it...
    assert stored[0]["display_only"]["drawn_by"] == "adoption"
    assert shown(with_alerts, "alerts").alerts == []  # ...so no alert card repeats the adoption card
    challenge = shown(with_alerts, "adoption").pending  # ...and the code, by the adoption layer
    assert [(p["identifier"], p["role"]) for p in challenge] == [("tablet", "viewer")]

    without_alerts = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "alerts",
                                "SVC_DISPLAY_DATA_DIR": str(with_alerts.settings.data_dir) + "-bare"})
    with orm.db_session:
        without_alerts.services[ADOPTION].create("tablet", "viewer")
    assert "alerts" not in [spec.id for _plugin, spec in without_alerts.registries.display_layers]
    assert [p["identifier"] for p in shown(without_alerts, "adoption").pending] == ["tablet"]


def active_on_both_surfaces(api):
    """(ids GET /v1/alerts?active=true lists, highest priority first; ids the alerts layer draws)."""
    result = api.get("/v1/alerts?active=true")
    assert result.status_code == 200, result.text
    rest = sorted(result.json["items"], key=lambda a: (-a["priority"], -a["created_at_ms"], a["id"]))
    return [a["id"] for a in rest][:3], [a["id"] for a in shown(api.host, "alerts").alerts]


def test_the_active_alerts_agree_on_the_api_and_the_canvas(api):
    ids = {}
    for title, priority, expires in (("low", 1, None), ("high", 9, None), ("soon", 5, 2_000),
                                     ("gone", 7, None)):
        body = {"title": title, "priority": priority}
        if expires is not None:
            body["expires_at"] = api.host.clock.now_ms() + expires
        result = api.post("/v1/alerts", json=body)
        assert result.status_code == 201, result.text
        ids[title] = result.json["id"]
    assert api.delete(f"/v1/alerts/{ids['gone']}").status_code == 200  # dismissed
    rest, canvas = active_on_both_surfaces(api)
    assert rest == canvas == [ids["high"], ids["soon"], ids["low"]]
    later = api.host.clock.now_ms() / 1000 + 3
    api.host.clock = FixedClock(dt.datetime.fromtimestamp(later, dt.timezone.utc))
    rest, canvas = active_on_both_surfaces(api)  # "soon" expired on both
    assert rest == canvas == [ids["high"], ids["low"]]
    for title in ("a", "b", "c"):
        assert api.post("/v1/alerts", json={"title": title, "priority": 3}).status_code == 201
    rest, canvas = active_on_both_surfaces(api)  # at most three cards: the three the API ranks first
    assert rest == canvas and len(canvas) == 3 and canvas[0] == ids["high"]
