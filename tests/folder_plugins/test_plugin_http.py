"""plugin_http: a sidecar's HTTP contract."""
from __future__ import annotations

from pony import orm

from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests.integrations.fault_setups import configure
from hookspecs.services import INTEGRATIONS


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
    configure(host, "plugin_http", baseUrl=upstream.url, pluginId="hello", options={"mood": "happy"})
    engine = host.services[INTEGRATIONS]
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


def test_a_plugin_http_row_needs_no_token_to_count_as_configured(api):
    """The token is optional (a sidecar may need none): its rows said secrets_configured false
    while they collected fine."""
    from builtin_plugins.folder_plugins import plugin_http
    from hookspecs.services import INTEGRATIONS, require

    row_id = plugin_http.row_id("lamps")
    with orm.db_session:
        require(api.host, INTEGRATIONS).ensure_row(row_id, plugin_http.TYPE_ID, {"pluginId": "lamps"}, enabled=True)
    row = api.get(f"/v1/integrations/{row_id}").json
    assert row["secrets_configured"] is True
    assert row["secret_fields"] == [{"name": "token", "configured": False}]


def _answer(upstream, body):
    from tests.integrations.upstream import Reply
    import json

    upstream.handle("/collect", lambda request: Reply(200, {"Content-Type": "application/json"},
                                                      json.dumps(body).encode()))


def test_jokes_of_a_sidecar_show_with_news_disabled(make_host, upstream, caplog):
    """Each kind is written by its owner: with ``news`` disabled the jokes are stored and listed,
    the articles refused with one log line naming the type (not AttributeError on RssArticle)."""
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "news"})
    _answer(upstream, {"items": [
        {"kind": "joke", "id": "j1", "setup": "Why?", "punchline": "Because."},
        {"kind": "rss_article", "id": "a1", "title": "Plugin news"},
        {"kind": "rss_article", "id": "a2", "title": "More news"},
    ]})
    configure(host, "plugin_http", baseUrl=upstream.url, pluginId="hello")
    with caplog.at_level("WARNING"):
        run = host.services[INTEGRATIONS].run_now("plugin_http")
    assert run.status == "ok", run
    jokes = Api(host, issue_key(host, "admin", "test-admin")).get("/v1/catalog/jokes").json["items"]
    assert [(j["id"], j["punchline"]) for j in jokes] == [("plugin_http:hello:j1", "Because.")]
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 1 and "'rss_article'" in refusals[0] and "hello" in refusals[0], refusals


def test_a_sidecar_item_missing_a_field_its_owner_requires_stores_nothing(host, upstream):
    """A sidecar's items go through the same mapping as the cloud feed's: a joke needs a setup."""
    _answer(upstream, {"items": [{"kind": "joke", "id": "j1", "setup": "Fine", "punchline": "."},
                                 {"kind": "joke", "id": "j2", "punchline": "No setup"}]})
    configure(host, "plugin_http", baseUrl=upstream.url, pluginId="hello")
    run = host.services[INTEGRATIONS].run_now("plugin_http")
    assert run.status != "ok" and "'setup' is required" in run.message, run
    with orm.db_session:
        assert host.db.Joke.select().count() == 0
