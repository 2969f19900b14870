"""The news ticker tape over HTTP: newest first, never a suppressed article."""
import pytest
from pony import orm

from tests.ticker.tapes import NOW, _items, _tape

pytestmark = pytest.mark.svc_display_storage


def test_news_never_shows_suppressed_and_orders_newest_first(ticker):
    now_ms = int(NOW.timestamp() * 1000)
    with orm.db_session:
        db = ticker.host.db
        db.RssFeed(id="world", url="https://example.org/world.xml", category="news")
        db.RssFeed(id="tech", url="https://example.org/tech.xml", category="tech")
        db.RssArticle(id="a1", feed_id="world", guid="a1", title="Older headline", published_at_ms=now_ms - 7200_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a2", feed_id="world", guid="a2", title="Newest headline", published_at_ms=now_ms - 60_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a3", feed_id="world", guid="a3", title="Hidden headline", published_at_ms=now_ms,
                      created_at_ms=now_ms, suppressed=True)
        db.RssArticle(id="a4", feed_id="tech", guid="a4", title="Tech headline", published_at_ms=now_ms - 3600_000,
                      created_at_ms=now_ms)
        db.RssArticle(id="a5", feed_id="tech", guid="a5", title="Ancient headline",
                      published_at_ms=now_ms - 90 * 3600_000, created_at_ms=now_ms)
    _tape(ticker, "n", "news", {"maxAgeHours": 48})
    bodies = [i["body"] for i in _items(ticker)]
    assert bodies == ["Newest headline", "Tech headline", "Older headline"]
    assert all(i["kind"] == "news" for i in _items(ticker))
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"feedIds": ["world"], "maxItems": 1}})
    assert [i["body"] for i in _items(ticker)] == ["Newest headline"]
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"category": "tech"}})
    assert [i["body"] for i in _items(ticker)] == ["Tech headline", "Ancient headline"]
    ticker.patch("/v1/ticker/tapes/n", json={"config_json": {"category": "sports"}})
    assert _items(ticker) == []
