"""GET/PUT /v1/display/settings: every key of spec 2.11, validation and permissions."""
import pytest
from pony import orm

from builtin_plugins.settings.store import ALL_ROLES
from svc_display.testing import issue_key
from hookspecs.services import SETTINGS

pytestmark = pytest.mark.svc_display_storage

KEYS = {
    "display_theme_id", "display_custom_themes", "display_text_scale_screen", "display_text_scale_ticker",
    "display_overscan_percent", "display_timezone", "controller_time_format", "controller_date_order",
    "display_weather_temperature_unit", "adoption_allowed_roles", "adoption_allow_new_requests", "sync_group",
}


def test_defaults(api):
    result = api.get("/v1/display/settings", key=issue_key(api.host, "viewer"))
    assert result.status_code == 200
    assert set(result.json) == KEYS
    assert result.json["display_theme_id"] == "navy_coral"
    assert result.json["display_custom_themes"] == []
    assert result.json["display_timezone"] == "UTC"
    assert result.json["adoption_allowed_roles"] == ALL_ROLES
    assert result.json["adoption_allow_new_requests"] is True
    assert api.client.simulate_get("/v1/display/settings").status_code == 401


def test_partial_update_round_trip(api):
    body = {"display_text_scale_screen": 1.25, "display_text_scale_ticker": 0.75, "display_timezone": "Asia/Tokyo",
            "controller_time_format": "12h", "controller_date_order": "dmy",
            "display_weather_temperature_unit": "f", "display_theme_id": "plum_gold", "display_overscan_percent": 5.0}
    result = api.put("/v1/display/settings", json=body)
    assert result.status_code == 200, result.text
    for key, value in body.items():
        assert result.json[key] == value
    assert api.get("/v1/display/settings").json == result.json
    assert api.host.services[SETTINGS].get("controller_time_format") == "12h"
    only_one = api.put("/v1/display/settings", json={"controller_date_order": "mdy"}).json
    assert only_one["controller_date_order"] == "mdy" and only_one["display_timezone"] == "Asia/Tokyo"


def test_empty_timezone_removes_the_row(api):
    api.put("/v1/display/settings", json={"display_timezone": "Europe/Paris"})
    assert api.host.services[SETTINGS].is_stored("display_timezone")
    result = api.put("/v1/display/settings", json={"display_timezone": ""})
    assert result.status_code == 200 and result.json["display_timezone"] == "UTC"
    assert not api.host.services[SETTINGS].is_stored("display_timezone")


@pytest.mark.parametrize("body", [{}, {"unknown_setting": 1}, {"display_custom_themes": []}])
def test_no_recognised_fields(api, body):
    result = api.put("/v1/display/settings", json=body)
    assert result.status_code == 400 and result.json["code"] == "no_display_settings_fields"


def test_unknown_theme_id(api):
    result = api.put("/v1/display/settings", json={"display_theme_id": "neon_pink", "controller_time_format": "12h"})
    assert result.status_code == 400 and result.json["code"] == "unknown_display_theme_id"
    assert api.get("/v1/display/settings").json["controller_time_format"] == "24h"  # nothing changed


@pytest.mark.parametrize("body, field", [
    ({"display_timezone": "Mars/Olympus"}, "display_timezone"),
    ({"display_timezone": "../../etc/passwd"}, "display_timezone"),
    ({"display_timezone": "x" * 100}, "display_timezone"),
    ({"display_timezone": None}, "display_timezone"),
    ({"display_text_scale_screen": 0}, "display_text_scale_screen"),
    ({"display_text_scale_ticker": "big"}, "display_text_scale_ticker"),
    ({"display_overscan_percent": 11}, "display_overscan_percent"),
    ({"display_overscan_percent": -1}, "display_overscan_percent"),
    ({"display_overscan_percent": "a little"}, "display_overscan_percent"),
    ({"controller_time_format": "36h"}, "controller_time_format"),
    ({"controller_date_order": "ydm"}, "controller_date_order"),
    ({"display_weather_temperature_unit": "k"}, "display_weather_temperature_unit"),
    ({"adoption_allowed_roles": ["root"]}, "adoption_allowed_roles"),
    ({"adoption_allowed_roles": "admin"}, "adoption_allowed_roles"),
    ({"adoption_allow_new_requests": "sometimes"}, "adoption_allow_new_requests"),
])
def test_invalid_values(api, body, field):
    result = api.put("/v1/display/settings", json=body)
    assert result.status_code == 400 and result.json["code"] == "validation_failed", result.text
    assert field in result.json["details"]


def test_adoption_settings_and_legacy_flag(api):
    result = api.put("/v1/display/settings", json={"adoption_allowed_roles": ["viewer", "admin", "viewer"]})
    assert result.json["adoption_allowed_roles"] == ["admin", "viewer"]
    assert api.host.services[SETTINGS].get("adoption_allowed_roles") == ["admin", "viewer"]
    closed = api.put("/v1/display/settings", json={"adoption_allow_new_requests": False}).json
    assert closed["adoption_allowed_roles"] == [] and closed["adoption_allow_new_requests"] is False
    opened = api.put("/v1/display/settings", json={"adoption_allow_new_requests": True}).json
    assert opened["adoption_allowed_roles"] == ALL_ROLES
    with orm.db_session:  # a legacy row from an older release is read through the store
        api.host.services[SETTINGS].delete("adoption_allowed_roles")
        api.host.services[SETTINGS].set("adoption_allow_new_requests", False)
    assert api.get("/v1/display/settings").json["adoption_allowed_roles"] == []


def test_permissions(api):
    operator = issue_key(api.host, "operator")
    viewer = issue_key(api.host, "viewer")
    assert api.put("/v1/display/settings", key=viewer, json={"controller_time_format": "12h"}).status_code == 403
    assert api.put("/v1/display/settings", key=operator, json={"controller_time_format": "12h"}).status_code == 200
    for body in ({"adoption_allowed_roles": []}, {"adoption_allow_new_requests": False},
                 {"adoption_allowed_roles": [], "controller_time_format": "24h"}):
        denied = api.put("/v1/display/settings", key=operator, json=body)
        assert denied.status_code == 403 and denied.json["code"] == "forbidden"
    settings = api.get("/v1/display/settings").json
    assert settings["adoption_allowed_roles"] == ALL_ROLES and settings["controller_time_format"] == "12h"


def test_overscan_percent_is_a_display_setting_from_0_to_10(api):
    """The overscan (issue 35): stored, read back, handed to the canvas in the preferences; a value
    out of range is a 400 naming it and changes nothing."""
    from svc_host.kit.services import preferences

    assert api.get("/v1/display/settings").json["display_overscan_percent"] == 0.0
    assert preferences(api.host).overscan_percent == 0.0
    assert api.put("/v1/display/settings", json={"display_overscan_percent": 5}).json["display_overscan_percent"] == 5.0
    assert preferences(api.host).overscan_percent == 5.0
    result = api.put("/v1/display/settings", json={"display_overscan_percent": 12.5, "controller_time_format": "12h"})
    assert result.status_code == 400 and "display_overscan_percent" in result.json["details"], result.text
    after = api.get("/v1/display/settings").json
    assert after["display_overscan_percent"] == 5.0 and after["controller_time_format"] == "24h"
