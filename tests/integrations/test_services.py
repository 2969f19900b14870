"""stock_finnhub, home_assistant and plugin_http."""

from __future__ import annotations

from pony import orm


def _config(host, type_id, **config):
    with orm.db_session:
        host.db.Integration[type_id].config_json = config


def test_finnhub_quotes_per_symbol(host, api, upstream):
    def quote(request):
        from tests.integrations.upstream import Reply
        import json

        symbol = request.query["symbol"][0]
        body = (
            {
                "c": 189.5,
                "d": -1.25,
                "dp": -0.655,
                "h": 191.0,
                "l": 188.2,
                "o": 190.1,
                "pc": 190.75,
                "t": 1717185600,
            }
            if symbol == "AAPL"
            else {"c": 0, "d": None, "dp": None, "h": 0, "l": 0, "o": 0, "pc": 0, "t": 0}
        )
        return Reply(200, {"Content-Type": "application/json"}, json.dumps(body).encode())

    upstream.handle("/api/v1/quote", quote)
    with orm.db_session:
        host.db.StockSymbol(id="apple", symbol="AAPL", display_name="Apple")
        host.db.StockSymbol(id="nope", symbol="NOPE")
    _config(host, "stock_finnhub", baseUrl=upstream.url)
    api.patch("/v1/integrations/stock_finnhub", json={"secrets": {"apiKey": "fh-secret-1"}})
    result = host.services["integrations"].run_now("stock_finnhub")
    assert result.status == "ok" and "1 failed" in result.message
    request = upstream.requests_to("/api/v1/quote")[0]
    assert request.headers["X-Finnhub-Token"] == "fh-secret-1" and "token" not in request.query
    with orm.db_session:
        row = host.db.StockQuote["apple"]
        assert (row.symbol, row.display_name, row.price, row.change, row.as_of_ms) == (
            "AAPL",
            "Apple",
            189.5,
            -1.25,
            1717185600000,
        )
        assert host.db.StockQuote.get(symbol_id="nope") is None


def test_home_assistant_states_into_ticker_and_alerts(host, api, upstream):
    upstream.json(
        "/api/states",
        [
            {
                "entity_id": "sensor.office_temperature",
                "state": "21.5",
                "last_changed": "2024-06-01T10:00:00+00:00",
                "attributes": {"unit_of_measurement": "°C", "friendly_name": "Office temperature"},
            },
            {
                "entity_id": "binary_sensor.front_door",
                "state": "on",
                "attributes": {"friendly_name": "Front door"},
            },
        ],
    )
    raised = []

    class Alerts:
        def upsert_source_alert(self, **alert):
            raised.append(alert)

        def clear_source_alerts(self, source, keep_keys):
            raised.append({"cleared_except": keep_keys, "source": source})

    host.services["alerts"] = Alerts()
    _config(
        host,
        "home_assistant",
        baseUrl=upstream.url,
        entities=[
            {"entityId": "sensor.office_temperature", "label": "Office"},
            {
                "entityId": "binary_sensor.front_door",
                "ticker": False,
                "alertWhen": ["on"],
                "alertTitle": "Door open",
            },
            {"entityId": "sensor.gone"},
        ],
    )
    assert host.services["integrations"].run_now("home_assistant").status == "failed"  # no token yet
    api.patch("/v1/integrations/home_assistant", json={"secrets": {"token": "ha-long-lived-token"}})
    result = host.services["integrations"].run_now("home_assistant")
    assert result.status == "ok", result
    assert upstream.requests_to("/api/states")[0].headers["Authorization"] == "Bearer ha-long-lived-token"
    with orm.db_session:
        assert host.db.KeyValue["ticker.marquee.home_assistant"].value == "Office: 21.5 °C"
    assert raised[0] == {
        "source": "home_assistant",
        "key": "binary_sensor.front_door",
        "title": "Door open",
        "body": "Front door is on",
        "severity": "warning",
    }
    assert raised[1] == {"cleared_except": ["binary_sensor.front_door"], "source": "home_assistant"}
    assert any("sensor.gone" in line["message"] for line in host.services["integration_telemetry"].lines())


def test_plugin_http_sidecar_contract(host, upstream):
    from tests.integrations.upstream import Reply
    import json

    answers = [
        {
            "items": [
                {
                    "kind": "joke",
                    "id": "j1",
                    "setup": "Knock knock?",
                    "punchline": "Plugin.",
                    "category_id": "fun",
                },
                {"kind": "quote", "id": "q1", "text": "Be kind.", "author": "Sidecar"},
                {
                    "kind": "rss_article",
                    "id": "a1",
                    "feed_id": "side",
                    "title": "Plugin news",
                    "link": "https://x.test/1",
                    "published_at_ms": 1717236000000,
                },
                {
                    "kind": "trivia",
                    "id": "t1",
                    "question": "2+2?",
                    "option_a": "3",
                    "option_b": "4",
                    "correct_option": "B",
                },
            ],
            "ticker": "Hello from the sidecar",
        },
        {"items": [{"kind": "quote", "id": "q1", "text": "Be kinder."}]},
    ]
    seen = []

    def collect(request):
        seen.append(request.json())
        return Reply(200, {"Content-Type": "application/json"}, json.dumps(answers[len(seen) - 1]).encode())

    upstream.handle("/collect", collect)
    _config(host, "plugin_http", baseUrl=upstream.url, pluginId="hello", options={"mood": "happy"})
    engine = host.services["integrations"]
    assert engine.run_now("plugin_http").status == "ok"
    assert seen[0]["integration_type"] == "plugin_http" and seen[0]["plugin_id"] == "hello"
    assert seen[0]["config"] == {"pluginId": "hello", "options": {"mood": "happy"}}
    with orm.db_session:
        assert host.db.Joke["plugin_http:hello:j1"].punchline == "Plugin."
        assert host.db.RssArticle["plugin_http:hello:a1"].feed_id == "side"
        assert host.db.TriviaQuestion["plugin_http:hello:t1"].correct_option == "B"
        assert host.db.KeyValue["ticker.marquee.hello"].value == "Hello from the sidecar"
    assert engine.run_now("plugin_http").status == "ok"
    with orm.db_session:
        assert [q.text for q in host.db.Quote.select()] == ["Be kinder."]
        assert host.db.Joke.select().count() == 0 and host.db.RssArticle.select().count() == 0
