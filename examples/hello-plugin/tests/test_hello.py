"""hello's own test: every fixture comes from svc-display's pytest plugin (svc_display.testing)."""
import hello_plugin

YELLOW = (255, 204, 0)


def test_hello(svc_display_host, svc_display_api, svc_display_upstream, svc_display_frame):
    host = svc_display_host(plugins=[hello_plugin])  # replaces the installed copy, if any
    api = svc_display_api(host, role="admin", identifier="tester")
    answer = api.get("/v1/hello", params={"name": "kiosk"})
    assert answer.json == {"message": "hello, kiosk", "caller": "tester"}
    assert api.get("/v1/hello", key="").status_code == 401
    svc_display_upstream.json("/greetings", [{"id": "1", "text": "bonjour", "lang": "fr"}])  # on loopback
    api.patch("/v1/integrations/hello_greetings", json={"base_url": svc_display_upstream.url})
    assert api.post("/v1/integrations/hello_greetings/run").json["status"] == "ok"
    assert api.post("/v1/ticker/tapes", json={"id": "greetings", "ticker_type": "hello"}).status_code == 201
    assert [item["body"] for item in api.get("/v1/ticker/items").json["items"]] == ["bonjour (fr)"]
    frame = svc_display_frame(host, "screen", "hello", {"color": "#ffcc00"})  # the real canvas, offscreen
    assert 0.002 < frame.fraction(YELLOW) < 0.5  # the greeting, drawn in the configured colour
