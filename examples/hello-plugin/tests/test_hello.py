"""hello's own test: one svc_display.testing helper per part of the plugin."""
import hello_plugin

V1_0 = "CREATE TABLE hello_greeting (id TEXT PRIMARY KEY, text TEXT); INSERT INTO hello_greeting VALUES ('1', 'hi')"


def test_hello(svc_display_host, svc_display_api, svc_display_collect, svc_display_frame, svc_display_migrated):
    host = svc_display_host(plugins=[hello_plugin])  # replaces the installed copy, if any
    api = svc_display_api(host, role="viewer", identifier="tester")
    assert api.get("/v1/hello", params={"name": "kiosk"}).json == {"message": "hello, kiosk", "caller": "tester"}
    greetings = {"/greetings": [{"id": "1", "text": "bonjour", "lang": "fr"}]}  # served on loopback
    assert svc_display_collect(host, "hello_greetings", greetings)["status"] == "ok"
    assert svc_display_frame(host, "ticker", "hello").items == ["bonjour (fr)"]  # the tape's text
    slide = svc_display_frame(host, "screen", "hello", {"color": "#ffcc00"})  # the real canvas, offscreen
    assert 0.002 < slide.fraction((255, 204, 0)) < 0.5  # the greeting, drawn in the configured colour
    x, y, width, height = svc_display_frame(host, "overlay", "hello_note", size=(640, 360)).panel
    assert 320 < x < x + width < 640 and 180 < y < y + height < 360  # a panel in the bottom-right corner
    for rows in svc_display_migrated(hello_plugin, V1_0, "hello_greeting").values():  # SQLite (section 8)
        assert rows == [{"id": "1", "text": "hi", "lang": ""}]  # 0002_lang added lang to the 1.0 table
