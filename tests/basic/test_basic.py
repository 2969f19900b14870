"""The basic types: message, QR code and controller invite slides, QR code and static image
overlays, the static text tape."""
import pytest

from tests.ticker.tapes import _items, _tape

pytestmark = pytest.mark.svc_display_storage


def test_the_basic_types_come_from_the_basic_plugin(host):
    registries = host.registries
    assert {t for t, owner in registries.screen_types.owner.items() if owner == "basic"} == {
        "message", "qr_code", "controller_invite"}
    assert {t for t, owner in registries.overlay_types.owner.items() if owner == "basic"} == {
        "qr_code", "static_image"}
    assert {t for t, owner in registries.ticker_types.owner.items() if owner == "basic"} == {"text"}


def test_a_message_slide_and_a_text_tape(ticker):
    assert ticker.post("/v1/screens", json={"id": "hello", "screen_type": "message",
                                            "config_json": {"body": "Lunch at noon"}}).status_code == 201
    assert ticker.post("/v1/screens", json={"id": "bad", "screen_type": "message",
                                            "config_json": {"title": "no body"}}).status_code == 400
    _tape(ticker, "lobby", "text", {"text": "  Welcome to the lobby  "})
    _tape(ticker, "blank", "text", {"text": " "})
    assert _items(ticker) == [{"ordinal": 0, "kind": "text", "body": "Welcome to the lobby"}]


def test_a_qr_code_overlay_needs_its_payload(api):
    window = {"overlay_type": "qr_code", "start_month": 5, "start_day": 1}
    missing = api.post("/v1/display/overlays", json={**window, "config_json": {"caption": "no payload"}})
    assert missing.status_code == 400
    payload = {"payload": "https://example.org"}
    given = api.post("/v1/display/overlays", json={**window, "config_json": payload})
    assert given.status_code == 200
