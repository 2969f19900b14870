"""The decorative overlay effects: closed schemas with valid examples, each accepted as an overlay row."""
import jsonschema
import pytest

from builtin_plugins import effects

pytestmark = pytest.mark.svc_display_storage

EFFECTS = {"shape_rain", "birthday_confetti", "bouncing_message", "falling_images", "matrix_rain",
           "edge_glow", "floating_balloons", "cloud_drift"}


def test_the_effects_are_the_decorative_overlays_with_closed_schemas():
    assert {t.id for t in effects.TYPES.overlay_types} == EFFECTS
    for item in effects.TYPES.overlay_types:
        jsonschema.Draft202012Validator.check_schema(item.config_schema)
        assert item.config_schema["additionalProperties"] is False
        validator = jsonschema.Draft202012Validator(item.config_schema)
        assert list(validator.iter_errors(item.example_config)) == []


def test_each_example_is_an_overlay_row_and_a_wrong_key_is_refused(api):
    for number, type_id in enumerate(sorted(EFFECTS), start=1):
        example = api.host.registries.overlay_types.get(type_id).example_config
        assert api.host.registries.overlay_types.owner[type_id] == "effects"
        created = api.post("/v1/display/overlays", json={"id": type_id, "overlay_type": type_id,
                                                         "start_month": 1, "start_day": number,
                                                         "config_json": example})
        assert created.status_code == 200, (type_id, created.text)
    refused = api.post("/v1/display/overlays", json={"overlay_type": "matrix_rain", "start_month": 1,
                                                     "start_day": 1, "config_json": {"colour": "#00ff00"}})
    assert refused.status_code == 400 and refused.json["code"] == "validation_failed"


def test_disabling_effects_removes_its_overlays(make_host):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "effects"})
    assert not EFFECTS & {t.id for t in host.registries.overlay_types}
    assert "static_image" in host.registries.overlay_types
