"""The catalog over HTTP (spec 4.6, 5.9): pages, filters, suppression by role, all eleven lists."""
import pytest
from pony import orm

from svc_display.testing import issue_key
from tests.content_rows import ThrowawayAlertPlugin, add_article, add_joke, add_photo, add_trivia

pytestmark = pytest.mark.svc_display_storage

CATALOGS = ["jokes", "trivia", "rss-articles", "photos", "videos", "stock-quotes", "weather-current",
            "weather-alerts", "alerts", "calendar-events", "tasks"]


@pytest.fixture
def content(make_host):
    host = make_host(plugins=[("throwaway_alert", ThrowawayAlertPlugin())])

    class Keys:
        admin = issue_key(host, "admin")
        operator = issue_key(host, "operator")
        power = issue_key(host, "power_viewer")
        viewer = issue_key(host, "viewer")

    from svc_display.testing import ApiClient as Api
    return Api(host, Keys.admin), Keys


def seed_all(db):
    add_joke(db, "j1", setup="Knock knock", punchline="Who is there", at=3)
    add_joke(db, "j2", setup="A horse walks", punchline="Long face", category_id="general", suppressed=True, at=2)
    add_trivia(db, "t1", question="Capital of France?", at=2)
    add_trivia(db, "t2", question="Largest ocean?", suppressed=True, integration_type="opentdb", at=1)
    add_article(db, "a1", title="Storm hits the coast", summary="Heavy rain", at=5)
    add_article(db, "a2", title="Market rally", summary="Stocks up", feed_id="biz", suppressed=True, at=4)
    add_photo(db, "p1", alt_text="Sunset over sea")
    add_photo(db, "p2", alt_text="Mountain", suppressed=True)
    add_photo(db, "v1", alt_text="Waves", entity="Video", duration_seconds=3.5)
    db.StockQuote(symbol_id="aapl", symbol="AAPL", display_name="Apple", price=190.5, as_of_ms=1,
                  integration_type="stocks_api")
    db.StockQuote(symbol_id="msft", symbol="MSFT", display_name="Microsoft", price=400.0, as_of_ms=1,
                  integration_type="stocks_api")
    db.WeatherCurrent(location_id="home", location_name="Berlin", description="light rain", temp_c=7.5,
                      integration_type="weather_api")
    db.WeatherAlert(location_id="home", alert_id="w1", event="Gale warning", headline="Strong winds",
                    severity="moderate", excerpt="Winds up to 80 km/h", location_name="Berlin",
                    integration_type="weather_api")
    extra = {"created_at_ms": 1} if "created_at_ms" in db.Alert._adict_ else {}
    db.Alert(id="al1", title="Door open", body="Back door", source="sensors", severity="warning", **extra)
    event = db.CalendarEvent(id="c1", title="Team lunch", source="calendar_ical", start_ms=10, end_ms=20,
                             category_id="calendar", location="Cafe")
    db.CalendarEventCategory(event=event, category_id="general")
    db.Task(id="k1", title="Buy milk", list_label="Groceries", board_key="home", integration_type="tasks_api",
            integration_id="todo-1")


@pytest.mark.parametrize("path,filters,expected", [
    ("jokes", {"setup": "knock"}, ["j1"]),
    ("jokes", {"punchline": "FACE"}, ["j2"]),
    ("jokes", {"category": "general"}, ["j2"]),
    ("trivia", {"question": "france"}, ["t1"]),
    ("trivia", {"integration_type": "opentdb"}, ["t2"]),
    ("trivia", {"option_a": "a1", "category": "trivia"}, ["t1", "t2"]),
    ("rss-articles", {"title": "storm"}, ["a1"]),
    ("rss-articles", {"summary": "up"}, ["a2"]),
    ("rss-articles", {"feed_id": "biz"}, ["a2"]),
    ("rss-articles", {"guid": "guid-a1"}, ["a1"]),
    ("rss-articles", {"link": "example.org/a2"}, ["a2"]),
    ("photos", {"alt_text": "sun"}, ["p1"]),
    ("photos", {"data_provider": "pexels", "photographer_name": "ann"}, ["p1", "p2"]),
    ("videos", {"alt_text": "wave"}, ["v1"]),
    ("videos", {"category": "videos"}, ["v1"]),
    ("stock-quotes", {"symbol": "aap"}, ["aapl"]),
    ("stock-quotes", {"display_name": "micro"}, ["msft"]),
    ("weather-current", {"description": "rain", "location_name": "berl", "location_id": "home"}, ["home"]),
    ("weather-alerts", {"event": "gale", "headline": "wind", "severity": "mod", "excerpt": "80",
                        "location_name": "Berlin", "location_id": "home"}, ["w1"]),
    ("alerts", {"title": "door", "body": "back", "source": "sens", "severity": "warn"}, ["al1"]),
    ("calendar-events", {"title": "lunch", "location": "cafe", "source": "ical"}, ["c1"]),
    ("calendar-events", {"category": "general"}, ["c1"]),
    ("calendar-events", {"category": "calendar"}, ["c1"]),
    ("calendar-events", {"category": "news"}, []),
    ("tasks", {"title": "milk", "list_label": "groc", "board_key": "home", "integration_id": "todo"}, ["k1"]),
    ("tasks", {"title": "bread"}, []),
])
def test_filters_match_substrings_case_insensitively(content, path, filters, expected):
    api, keys = content
    with orm.db_session:
        seed_all(api.host.db)
    result = api.get(f"/v1/catalog/{path}", params=filters)
    assert result.status_code == 200, result.text
    assert sorted(item["id"] for item in result.json["items"]) == expected
    assert result.json["total"] == len(expected)


def test_every_catalog_answers_a_page(content):
    api, keys = content
    with orm.db_session:
        seed_all(api.host.db)
    for path in CATALOGS:
        result = api.get(f"/v1/catalog/{path}")
        assert result.status_code == 200, path
        assert set(result.json) == {"items", "total", "limit", "offset"}
        assert result.json["limit"] == 25 and result.json["offset"] == 0
        assert result.json["total"] == len(result.json["items"]) >= 1
        for item in result.json["items"]:
            assert "integration_type" in item


def test_item_fields(content):
    api, keys = content
    with orm.db_session:
        seed_all(api.host.db)
    joke = api.get("/v1/catalog/jokes", params={"setup": "knock"}).json["items"][0]
    assert {"setup", "punchline", "category_id", "integration_type", "suppressed"} <= set(joke)
    trivia = api.get("/v1/catalog/trivia").json["items"][0]
    assert {"question", "option_a", "option_b", "option_c", "option_d", "correct_option", "category_id"} <= set(trivia)
    article = api.get("/v1/catalog/rss-articles").json["items"][0]
    assert {"title", "summary", "link", "guid", "feed_id", "image_blob_key", "published_at_ms"} <= set(article)
    video = api.get("/v1/catalog/videos").json["items"][0]
    assert video["duration_seconds"] == 3.5 and {"alt_text", "photographer_name", "data_provider",
                                                 "media_blob_key"} <= set(video)
    event = api.get("/v1/catalog/calendar-events").json["items"][0]
    assert event["category_ids"] == ["calendar", "general"] and event["integration_type"] == "calendar_ical"
    assert event["all_day"] is False and event["start_ms"] == 10 and "suppressed" not in event
    task = api.get("/v1/catalog/tasks").json["items"][0]
    assert set(task) == {"id", "title", "list_label", "board_key", "due_at_ms", "completed", "integration_type",
                         "integration_id"}
    alert = api.get("/v1/catalog/alerts").json["items"][0]
    assert {"title", "body", "source", "severity"} <= set(alert)
    quote = api.get("/v1/catalog/stock-quotes").json["items"][0]
    assert quote["symbol"] == "AAPL" and quote["display_name"] == "Apple"
    weather = api.get("/v1/catalog/weather-current").json["items"][0]
    assert weather["location_id"] == "home" and weather["description"] == "light rain"
    warning = api.get("/v1/catalog/weather-alerts").json["items"][0]
    assert warning["event"] == "Gale warning" and warning["location_name"] == "Berlin"


def test_pagination_limits_and_total(content):
    api, keys = content
    with orm.db_session:
        for index in range(130):
            add_joke(api.host.db, f"j{index:03d}", at=index)
    page = api.get("/v1/catalog/jokes").json
    assert page["total"] == 130 and len(page["items"]) == 25 and page["limit"] == 25
    assert page["items"][0]["id"] == "j129"  # newest first
    page = api.get("/v1/catalog/jokes", params={"limit": 100, "offset": 100}).json
    assert len(page["items"]) == 30 and page["total"] == 130 and page["items"][0]["id"] == "j029"
    assert api.get("/v1/catalog/jokes", params={"offset": 500}).json["items"] == []
    for bad in ({"limit": 101}, {"limit": 0}, {"offset": -1}, {"limit": "ten"}):
        result = api.get("/v1/catalog/jokes", params=bad)
        assert result.status_code == 400 and result.json["code"] == "validation_failed"


def test_percent_and_underscore_are_stripped(content):
    api, keys = content
    with orm.db_session:
        add_article(api.host.db, "a1", title="100% sure_thing")
        add_article(api.host.db, "a2", title="100 sureXthing")
    assert api.get("/v1/catalog/rss-articles", params={"title": "100%"}).json["total"] == 2
    assert api.get("/v1/catalog/rss-articles", params={"title": "0%_ s"}).json["total"] == 1  # "0 s": only a2
    # "sure_thing" becomes "surething", which neither title contains
    assert api.get("/v1/catalog/rss-articles", params={"title": "sure_thing"}).json["total"] == 0
    assert api.get("/v1/catalog/rss-articles", params={"title": "%_%"}).json["total"] == 2  # empty needle: no filter
    assert api.get("/v1/catalog/jokes", params={"setup": "_"}).json["total"] == 0


def test_filters_combine_with_and(content):
    api, keys = content
    with orm.db_session:
        add_article(api.host.db, "a1", title="Storm warning", summary="north", feed_id="f1")
        add_article(api.host.db, "a2", title="Storm over", summary="south", feed_id="f1")
        add_article(api.host.db, "a3", title="Storm again", summary="north", feed_id="f2")
    result = api.get("/v1/catalog/rss-articles", params={"title": "storm", "summary": "north", "feed_id": "f1"})
    assert [i["id"] for i in result.json["items"]] == ["a1"] and result.json["total"] == 1
    result = api.get("/v1/catalog/rss-articles", params={"title": "st", "summary": "no"})
    assert sorted(i["id"] for i in result.json["items"]) == ["a1", "a3"]


def test_rss_search_follows_inserts_updates_and_deletes(content):
    api, keys = content
    db = api.host.db
    with orm.db_session:
        add_article(db, "a1", title="Quiet evening")
    assert api.get("/v1/catalog/rss-articles", params={"title": "quiet"}).json["total"] == 1
    with orm.db_session:
        db.RssArticle["a1"].title = "Loud morning"
    assert api.get("/v1/catalog/rss-articles", params={"title": "quiet"}).json["total"] == 0
    assert api.get("/v1/catalog/rss-articles", params={"title": "LOUD MOR"}).json["total"] == 1
    with orm.db_session:
        db.RssArticle["a1"].delete()
    assert api.get("/v1/catalog/rss-articles", params={"title": "loud"}).json["total"] == 0
    with orm.db_session:
        add_article(db, "a2", title='He said "hi" there')
    assert api.get("/v1/catalog/rss-articles", params={"title": '"hi"'}).json["total"] == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": 'said "'}).json["total"] == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": "AND OR NOT *"}).json["total"] == 0


def test_odd_filter_values_never_fail(content):
    api, keys = content
    with orm.db_session:
        add_article(api.host.db, "a1", title="back\\slash and 'quote'")
    for needle in ["\\", "'", "''", "\"", "*", "(", "NEAR(", "\u00e9\u00e8", "😀", "x" * 500]:
        result = api.get("/v1/catalog/rss-articles", params={"title": needle})
        assert result.status_code == 200, (needle, result.text)
    assert api.get("/v1/catalog/rss-articles", params={"title": "k\\sl"}).json["total"] == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": "'quote'"}).json["total"] == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": "x" * 501}).status_code == 400
    assert api.get("/v1/catalog/rss-articles?title=a%00b").status_code == 400


def test_suppression_visibility_by_role(content):
    api, keys = content
    with orm.db_session:
        seed_all(api.host.db)
    expectations = {"jokes": ("j1", "j2"), "trivia": ("t1", "t2"), "rss-articles": ("a1", "a2"),
                    "photos": ("p1", "p2")}
    for path, (active, suppressed) in expectations.items():
        url = f"/v1/catalog/{path}"
        # content.moderate (admin): every row, with the flag; the filter works both ways
        every = api.get(url, key=keys.admin).json
        assert {i["id"]: i["suppressed"] for i in every["items"]} == {active: False, suppressed: True}
        assert [i["id"] for i in api.get(url, key=keys.admin, params={"suppressed": "true"}).json["items"]] == [suppressed]
        assert [i["id"] for i in api.get(url, key=keys.admin, params={"suppressed": "false"}).json["items"]] == [active]
        assert api.get(url, key=keys.admin, params={"suppressed": "maybe"}).status_code == 400
        # content.catalog_read only (power_viewer, operator): active rows, no flag, 403 for suppressed=true
        for key in (keys.power, keys.operator):
            page = api.get(url, key=key).json
            assert [i["id"] for i in page["items"]] == [active] and page["total"] == 1
            assert all("suppressed" not in i for i in page["items"])
            refused = api.get(url, key=key, params={"suppressed": "true"})
            assert refused.status_code == 403 and refused.json["code"] == "forbidden"
            assert [i["id"] for i in api.get(url, key=key, params={"suppressed": "false"}).json["items"]] == [active]
        # neither permission
        assert api.get(url, key=keys.viewer).status_code == 403
        assert api.get(url, key="svc_nope").status_code == 401


def test_catalogs_without_suppression_ignore_the_parameter(content):
    api, keys = content
    with orm.db_session:
        seed_all(api.host.db)
    result = api.get("/v1/catalog/tasks", key=keys.power, params={"suppressed": "true"})
    assert result.status_code == 200 and result.json["total"] == 1


def test_alerts_catalog_is_empty_without_an_alert_entity(api):
    result = api.get("/v1/catalog/alerts", params={"title": "x"})
    assert result.status_code == 200
    assert result.json == {"items": [], "total": 0, "limit": 25, "offset": 0}


def test_search_index_exists_for_the_backend(api, backend):
    db = api.host.db
    with orm.db_session:
        if backend == "sqlite":
            names = db.select("SELECT name FROM sqlite_master WHERE name LIKE 'svc_rss_article_fts%'")
            assert {"svc_rss_article_fts", "svc_rss_article_fts_ai", "svc_rss_article_fts_ad",
                    "svc_rss_article_fts_au"} <= set(names)
        else:
            names = db.select("SELECT indexname FROM pg_indexes WHERE tablename = 'svc_rss_article'")
            assert {"svc_rss_article_title_trgm", "svc_rss_article_summary_trgm", "svc_rss_article_link_trgm",
                    "svc_rss_article_guid_trgm", "svc_rss_article_catalog_order"} <= set(names)


def test_real_server_catalog(start_server):
    server = start_server()
    operator = server.key("operator")
    created = server.request("POST", "/v1/curator/manual/jokes", key=operator,
                             json={"category_id": "jokes", "setup": "Setup text", "punchline": "Punch"})
    assert created.status_code == 201
    page = server.request("GET", "/v1/catalog/jokes", key=operator, params={"setup": "TEXT"}).json()
    assert page["total"] == 1 and page["items"][0]["integration_type"] == "manual_entry"
    assert "suppressed" not in page["items"][0]
    admin_page = server.request("GET", "/v1/catalog/jokes", key=server.key("admin")).json()
    assert admin_page["items"][0]["suppressed"] is False


def test_rss_search_agrees_with_brute_force(content):
    """Every search path (index counts, ordered walk, sort of all matches) gives the same page."""
    api, keys = content
    words = ["alpha", "beta", "gamma", "delta"]
    rows = []
    with orm.db_session:
        for index in range(80):
            title = " ".join(words[j] for j in range(4) if index % (j + 2) == 0) or "none"
            summary = "odd" if index % 2 else "even"
            suppressed = index % 7 == 0
            add_article(api.host.db, f"r{index:02d}", title=f"{title} {index}", summary=summary,
                        feed_id=f"f{index % 3}", suppressed=suppressed, at=1000 + (index * 37) % 80)
            rows.append((f"r{index:02d}", f"{title} {index}", summary, f"f{index % 3}", suppressed,
                         1000 + (index * 37) % 80))
    cases = [{"title": "alpha"}, {"title": "gam"}, {"title": "delta", "summary": "even"},
             {"title": "beta", "feed_id": "f1"}, {"title": "al"}, {"title": "zzz"}, {"summary": "odd"}]
    for params in cases:
        for key, moderator in ((keys.power, False), (keys.admin, True)):
            for suppressed in ((None, True, False) if moderator else (None,)):
                for offset, limit in ((0, 25), (0, 3), (10, 5), (40, 100)):
                    query = {**params, "offset": offset, "limit": limit}
                    if suppressed is not None:
                        query["suppressed"] = "true" if suppressed else "false"
                    expected = [r for r in rows
                                if all(v.lower() in {"title": r[1], "summary": r[2], "feed_id": r[3]}[k].lower()
                                       for k, v in params.items())
                                and (r[4] == suppressed if suppressed is not None else (moderator or not r[4]))]
                    expected.sort(key=lambda r: (-r[5], tuple(-ord(c) for c in r[0])))
                    page = api.get("/v1/catalog/rss-articles", key=key, params=query).json
                    assert page["total"] == len(expected), (query, moderator)
                    assert [i["id"] for i in page["items"]] == [r[0] for r in expected[offset:offset + limit]], \
                        (query, moderator)
