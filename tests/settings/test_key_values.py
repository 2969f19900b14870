"""Key-values: sorted list, upsert, limits, delete; the settings service's reader and writers."""
import pytest
from pony import orm

from builtin_plugins.settings.store import KEY_MAX, VALUE_MAX
from hookspecs.services import SETTINGS, require
from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage


def test_put_list_sorted_and_delete(api):
    for key in ("zeta", "alpha", "display.overlay.enabled", "Beta"):
        result = api.put("/v1/config/key-values", json={"key": key, "value": f"v-{key}"})
        assert result.status_code == 200 and result.json == {"key": key, "value": f"v-{key}"}
    assert api.put("/v1/config/key-values", json={"key": "alpha", "value": ""}).json["value"] == ""
    assert api.put("/v1/config/key-values", json={"key": " spaced ", "value": "  kept \n"}).status_code == 200
    assert {"key": " spaced ", "value": "  kept \n"} in api.get("/v1/config/key-values").json["items"]
    assert api.delete("/v1/config/key-values", params={"key": " spaced "}).status_code == 200
    items = api.get("/v1/config/key-values", key=issue_key(api.host, "viewer")).json["items"]
    assert [i["key"] for i in items] == ["Beta", "alpha", "display.overlay.enabled", "zeta"]
    assert items[1] == {"key": "alpha", "value": ""}
    assert api.delete("/v1/config/key-values?key=alpha").status_code == 200
    missing = api.delete("/v1/config/key-values?key=alpha")
    assert missing.status_code == 404 and missing.json["code"] == "not_found"
    assert len(api.get("/v1/config/key-values").json["items"]) == 3
    assert api.delete("/v1/config/key-values", params={"key": "display.overlay.enabled"}).status_code == 200


def test_limits(api):
    assert api.put("/v1/config/key-values", json={"key": "k" * KEY_MAX, "value": "v" * VALUE_MAX}).status_code == 200
    too_long_key = api.put("/v1/config/key-values", json={"key": "k" * (KEY_MAX + 1), "value": "v"})
    assert too_long_key.status_code == 400 and too_long_key.json["code"] == "key_too_long"
    too_long_value = api.put("/v1/config/key-values", json={"key": "k", "value": "v" * (VALUE_MAX + 1)})
    assert too_long_value.status_code == 400 and too_long_value.json["code"] == "value_too_long"
    assert api.delete("/v1/config/key-values", params={"key": "k" * 5000}).json["code"] == "not_found"


@pytest.mark.parametrize("body, code", [
    ({"value": "v"}, "key_required"),
    ({"key": "", "value": "v"}, "key_required"),
    ({"key": "   ", "value": "v"}, "key_required"),
    ({"key": None, "value": "v"}, "key_required"),
    ({"key": "k"}, "validation_failed"),
    ({"key": "k", "value": None}, "validation_failed"),
    ({"key": "k", "value": 5}, "validation_failed"),
    ({"key": 5, "value": "v"}, "validation_failed"),
    ({"key": "a\nb", "value": "v"}, "validation_failed"),
    ({"key": "k", "value": "a\u0000b"}, "validation_failed"),
    ({"key": "k", "value": "v", "other": 1}, "validation_failed"),
])
def test_bad_puts(api, body, code):
    result = api.put("/v1/config/key-values", json=body)
    assert result.status_code == 400 and result.json["code"] == code, result.text
    assert api.get("/v1/config/key-values").json["items"] == []


def test_delete_needs_a_key(api):
    assert api.delete("/v1/config/key-values").json["code"] == "key_required"
    assert api.delete("/v1/config/key-values?key=").json["code"] == "key_required"
    assert api.delete("/v1/config/key-values?key=%00").status_code == 400


def test_permissions(api):
    viewer = issue_key(api.host, "viewer")
    operator = issue_key(api.host, "operator")
    assert api.put("/v1/config/key-values", key=viewer, json={"key": "a", "value": "b"}).status_code == 403
    assert api.put("/v1/config/key-values", key=operator, json={"key": "a", "value": "b"}).status_code == 200
    assert api.delete("/v1/config/key-values?key=a", key=viewer).status_code == 403
    assert api.delete("/v1/config/key-values?key=a", key=operator).status_code == 200
    assert api.client.simulate_get("/v1/config/key-values").status_code == 401


def test_the_service_writes_key_values_in_the_callers_transaction_or_its_own(api):
    settings = require(api.host, SETTINGS)
    settings.put_key_value("ticker.marquee.solo", "own transaction")
    assert settings.key_value("ticker.marquee.solo") == "own transaction"
    with pytest.raises(RuntimeError), orm.db_session:
        settings.put_key_value("ticker.marquee.solo", "rolled back with the caller")
        settings.put_key_value("ticker.marquee.other", "rolled back too")
        raise RuntimeError("the caller's transaction fails")
    assert settings.key_values("ticker.marquee.") == [("ticker.marquee.solo", "own transaction")]
    with orm.db_session:
        settings.put_key_value("ticker.marquee.solo", "x" * (VALUE_MAX + 10))
    assert api.get("/v1/config/key-values").json["items"] == [{"key": "ticker.marquee.solo", "value": "x" * VALUE_MAX}]
    for bad in ("", "k" * (KEY_MAX + 1)):
        with pytest.raises(ValueError):
            settings.put_key_value(bad, "v")
    assert settings.delete_key_value("ticker.marquee.solo") is True
    assert settings.delete_key_value("ticker.marquee.solo") is False
    assert settings.key_value("ticker.marquee.solo") is None
