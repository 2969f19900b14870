"""The RSS article search indexes on SQLite: the word index and its term list, the trigram
index, and the scan, which must all give the same pages (spec 4.6 substring filters)."""
import random
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pony import orm

from builtin_plugins.catalog import queries
from builtin_plugins.catalog.queries import MAX_TERMS, CatalogQuery
from builtin_plugins.catalog.routes import catalog_of
from builtin_plugins.news import search_index
from builtin_plugins.news.search_index import PENDING_TABLE, TERMS_TABLE, ascii_words, is_one_word
from svc_host.rest.listcache import list_cache
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests.content_rows import add_article

pytestmark = pytest.mark.svc_display_storage

ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@pytest.fixture
def sqlite_api(make_host):
    host = make_host()
    return Api(host, issue_key(host, "admin"))


def scanned(api, params: dict, suppressed=None, limit=100, offset=0):
    """The same page through the plain scan (no index): the reference."""
    with orm.db_session:
        rss = catalog_of(api.host.db, api.host.registries.content_lists["rss-articles"])
        query = CatalogQuery(api.host.db, api.host.db.RssArticle, rss, use_fts=False)
        for name, value in params.items():
            query.add_text_filter(name, value)
        if suppressed is not None:
            query.add_suppressed(suppressed)
        total, rows = query.page(limit, offset)
        return total, [row.id for row in rows]


def pending_rows(api) -> int:
    with orm.db_session:
        return int(api.host.db.select(f"SELECT COUNT(*) FROM {PENDING_TABLE}")[0])


def terms(api) -> set[str]:
    with orm.db_session:
        return set(api.host.db.select(f"SELECT term FROM {TERMS_TABLE}"))


def test_word_tokens_are_those_of_fts5s_ascii_tokenizer():
    texts = ["Storm hits the coast", "Caf\u00e9-Bar (Berlin), 24/7!", "e-mail: Ann@Example.ORG",
             "\u00dcBER \u00fcber na\u00efve \u65e5\u672c\u8a9e", "snake_case and CamelCase", "tab\tnew\nline",
             "x" * 300, "\u00e9\u00e9 \U0001f600smile", "a.b,c;d:e'f\"g"]
    rng = random.Random(5)
    alphabet = "abcXYZ019 -_.,:;'\"()\u00e9\u00c9\u00df\u4e2d\U0001f600\t"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='ascii', detail='column')")
    connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
    for text in texts:
        connection.execute("DELETE FROM f")
        connection.execute("INSERT INTO f(body) VALUES (?)", (text,))
        assert ascii_words(text) == {row[0] for row in connection.execute("SELECT term FROM v")}, text


def test_one_word_needles():
    assert is_one_word("storm") and is_one_word("Caf\u00e9") and is_one_word("24x7")
    assert not is_one_word("storm hits") and not is_one_word("e-mail") and not is_one_word("a.b")
    assert not is_one_word("")


def test_new_rows_join_the_term_list_at_the_next_search(sqlite_api, backend):
    if backend != "sqlite":
        pytest.skip("the word index is SQLite's")
    api = sqlite_api
    with orm.db_session:
        add_article(api.host.db, "a1", title="Thunderstorm over Lisbon", summary="Caf\u00e9-owners (worried)")
    assert pending_rows(api) == 1
    result = api.get("/v1/catalog/rss-articles", params={"title": "STORM"}).json
    assert [i["id"] for i in result["items"]] == ["a1"] and result["total"] == 1
    assert pending_rows(api) == 0
    assert {"thunderstorm", "over", "lisbon", "caf\u00e9", "owners", "worried"} <= terms(api)
    # an edit queues the row again; its new words are found, its old ones no longer match
    with orm.db_session:
        api.host.db.RssArticle["a1"].title = "Heatwave in Porto"
    assert pending_rows(api) == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": "wave"}).json["total"] == 1
    assert api.get("/v1/catalog/rss-articles", params={"title": "storm"}).json["total"] == 0
    assert api.get("/v1/catalog/rss-articles", params={"summary": "owner"}).json["total"] == 1
    # a word no row holds: nothing, without touching the table
    assert api.get("/v1/catalog/rss-articles", params={"title": "qwertyuiop"}).json == {
        "items": [], "total": 0, "limit": 25, "offset": 0}


def test_a_big_backlog_is_synced_from_the_index_vocabulary(sqlite_api, backend, monkeypatch):
    if backend != "sqlite":
        pytest.skip("the word index is SQLite's")
    api = sqlite_api
    monkeypatch.setattr(search_index, "VOCABULARY_SYNC_ROWS", 3)
    with orm.db_session:
        for index in range(6):
            add_article(api.host.db, f"b{index}", title=f"Backlog item{index} arrives", at=index)
    assert pending_rows(api) == 6
    result = api.get("/v1/catalog/rss-articles", params={"title": "item"}).json
    assert result["total"] == 6 and [i["id"] for i in result["items"]] == [f"b{i}" for i in range(5, -1, -1)]
    assert pending_rows(api) == 0 and {f"item{i}" for i in range(6)} <= terms(api)


def test_a_needle_inside_too_many_words_uses_the_trigram_index(sqlite_api):
    api = sqlite_api
    count = MAX_TERMS + 5
    with orm.db_session:
        for index in range(count):
            add_article(api.host.db, f"z{index:03d}", title=f"Word zork{index}x here", suppressed=index % 10 == 0,
                        at=index)
    result = api.get("/v1/catalog/rss-articles", params={"title": "zork", "limit": 100}).json
    assert result["total"] == count
    assert [i["id"] for i in result["items"]] == scanned(api, {"title": "zork"}, limit=100)[1]
    power = Api(api.host, issue_key(api.host, "power_viewer"))
    page = power.get("/v1/catalog/rss-articles", params={"title": "zork", "limit": 100, "offset": 7}).json
    assert (page["total"], [i["id"] for i in page["items"]]) == scanned(api, {"title": "zork"}, suppressed=False,
                                                                        offset=7)


WORDS = ["storm", "Sturm", "caf\u00e9", "CAF\u00c9", "rain", "rainbow", "brain", "e-mail", "mail", "na\u00efve",
         "24/7", "x-ray", "(quoted)", "o'clock", "Stormy"]


def check_agreement(admin: Api, power: Api, column: str, needle: str, **more: str) -> set[str]:
    """Every role, suppression filter, page and page-reading mode against the scan; the
    modes the pages were read with."""
    modes: set[str] = set()
    original = queries.CatalogQuery._page_mode

    def recording(self, *args):
        mode = original(self, *args)
        modes.add(mode)
        return mode

    filters = {column: needle, **more}
    # defaults, then 0 and 0: never test rows while walking, never read candidates in one pass
    for scan_walk_rows, one_pass in ((queries.SCAN_WALK_ROWS, queries.ONE_PASS_CANDIDATES), (0, 0)):
        for api, suppressed_values in ((power, (None,)), (admin, (None, True, False))):
            for suppressed in suppressed_values:
                for offset, limit in ((0, 100), (2, 3), (0, 1)):
                    params = {**filters, "limit": limit, "offset": offset}
                    if suppressed is not None:
                        params["suppressed"] = "true" if suppressed else "false"
                    with pytest.MonkeyPatch.context() as patch:
                        patch.setattr(queries, "SCAN_WALK_ROWS", scan_walk_rows)
                        patch.setattr(queries, "ONE_PASS_CANDIDATES", one_pass)
                        patch.setattr(queries.CatalogQuery, "_page_mode", recording)
                        cache = list_cache(admin.host)  # the page is computed, not served again
                        if cache is not None:
                            cache.clear()
                        page = api.get("/v1/catalog/rss-articles", params=params).json
                    expected = scanned(admin, filters, suppressed=suppressed if api is admin else False,
                                       limit=limit, offset=offset)
                    assert (page["total"], [i["id"] for i in page["items"]]) == expected, (params, scan_walk_rows)
    return modes


def test_every_page_mode_agrees_with_the_scan(sqlite_api, backend):
    admin = sqlite_api
    power = Api(admin.host, issue_key(admin.host, "power_viewer"))
    with orm.db_session:
        for index in range(60):
            title = ("Storm warning" if index % 3 == 0 else "Calm seas") + f" day {index}"
            add_article(admin.host.db, f"d{index:02d}", title=title, suppressed=index % 9 == 0, at=index % 11)
    modes = check_agreement(admin, power, "title", "storm")
    if backend == "sqlite":
        assert modes == {"scan", "walk", "drive"}
    # several words: candidates from the word index, each tested on the row
    for needle in ("storm warning", "warning day 1", "RM WARN", "seas day 4", "calm storm"):
        check_agreement(admin, power, "title", needle)
    # a filter the indexes do not serve, with one they do
    check_agreement(admin, power, "title", "storm", feed_id="fee")
    check_agreement(admin, power, "title", "warning day", feed_id="feed")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5),
                          st.lists(st.sampled_from(WORDS), max_size=4), st.booleans()), min_size=1, max_size=30),
       st.sampled_from(["storm", "STORM", "rain", "ain", "mail", "e-mail", "caf\u00e9", "CAF\u00c9", "ai", "raint",
                        "af\u00e9", "24/7", "ray", "clock", "m r", "orm", "storm rain", "rainbow brain",
                        "e-mail mail", "x-ray (", "clock na", "orm sturm", "(quoted) 24/7"]),
       st.sampled_from(["title", "summary"]))
def test_every_path_agrees_with_the_scan(sqlite_api, backend, rows, needle, column):
    """One host for every example (its articles replaced each time): index paths, the
    suppressed rows' scan and the count shortcuts against the plain scan."""
    admin = sqlite_api
    host = admin.host
    power = Api(host, issue_key(host, "power_viewer"))
    with orm.db_session:
        host.db.RssArticle.select().delete(bulk=True)
    with orm.db_session:
        for index, (title, summary, suppressed) in enumerate(rows):
            add_article(host.db, f"r{index:02d}", title=" ".join(title), summary=" ".join(summary),
                        suppressed=suppressed, at=index % 7)
    check_agreement(admin, power, column, needle)
    # the reference itself: a case-insensitive substring test (SQLite folds ASCII letters
    # only, PostgreSQL's ILIKE every letter)
    fold = (lambda text: text.lower()) if backend == "postgres" else (lambda text: text.translate(ASCII_LOWER))
    matching = [i for i, (title, summary, _s) in enumerate(rows)
                if fold(needle) in fold(" ".join(title if column == "title" else summary))]
    assert scanned(admin, {column: needle})[0] == len(matching)

