"""news_rss and news_hackernews against feeds served on loopback."""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pony import orm

from svc_host.kit.collecting import plain_text

from svc_display.testing.clock import advance_clock
from tests.content_media import png_bytes
from tests.integrations.upstream import Reply
from hookspecs.services import INTEGRATIONS, INTEGRATION_TELEMETRY


def epoch_ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=timezone.utc).timestamp() * 1000)


def rss(base: str, items: int = 3, start: int = 0) -> str:
    entries = "".join(f"""
    <item>
      <title>Story {i} &amp; more</title>
      <link>{base}/story/{i}</link>
      <guid>urn:story:{i}</guid>
      <description>&lt;p&gt;Summary &lt;b&gt;{i}&lt;/b&gt;&lt;/p&gt;</description>
      <pubDate>Mon, {10 + i % 18:02d} Jun 2024 08:00:00 GMT</pubDate>
      <media:content url="{base}/img/{i}.png" medium="image"/>
    </item>""" for i in range(start, start + items))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">
  <channel><title>Loopback News</title><link>{base}</link><description>d</description>{entries}
  </channel>
</rss>"""


ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom Loopback</title>
  <entry>
    <title>Atom entry</title>
    <link href="http://example.invalid/a1"/>
    <id>urn:uuid:atom-1</id>
    <updated>2024-06-01T10:00:00Z</updated>
    <content type="html">&lt;p&gt;Body with &lt;img src="{base}/img/a.png"&gt;&lt;/p&gt;</content>
  </entry>
</feed>"""


def add_feed(host, feed_id, url, **values):
    with orm.db_session:
        host.db.RssFeed(id=feed_id, url=url, **values)


def articles(host, feed_id=None):
    with orm.db_session:
        rows = host.db.RssArticle.select(lambda a: feed_id is None or a.feed_id == feed_id)
        return sorted((a.to_dict() for a in rows), key=lambda a: a["guid"])


def serve_images(upstream):
    image = png_bytes()
    for name in ("0", "1", "2", "3", "4", "5", "a"):
        upstream.reply(f"/img/{name}.png", image, "image/png")
    return image


def test_rss_upserts_articles_with_images(host, upstream):
    image = serve_images(upstream)
    upstream.reply("/feed.xml", rss(upstream.url), "application/rss+xml")
    add_feed(host, "loop", upstream.url + "/feed.xml", max_articles=10)
    result = host.services[INTEGRATIONS].run_now("news_rss")
    assert result.status == "ok", result
    rows = articles(host, "loop")
    assert [r["title"] for r in rows] == ["Story 0 & more", "Story 1 & more", "Story 2 & more"]
    first = rows[0]
    assert first["summary"] == "Summary 0"
    assert first["link"] == upstream.url + "/story/0"
    assert first["integration_type"] == "news_rss"
    assert first["published_at_ms"] == epoch_ms(2024, 6, 10, 8)
    blob = host.blobs.get(first["image_blob_key"])
    assert blob is not None and blob.content_type == "image/png" and blob.path.read_bytes() == image
    with orm.db_session:
        feed = host.db.RssFeed["loop"]
        assert feed.title == "Loopback News" and feed.consecutive_failures == 0 and feed.last_fetched_at
    if host.db.provider_name == "sqlite":  # the collector put the new words into the catalog's term list
        from builtin_plugins.news.search_index import PENDING_TABLE, TERMS_TABLE

        with orm.db_session:
            assert host.db.select(f"SELECT COUNT(*) FROM {PENDING_TABLE}")[0] == 0
            assert {"story", "more", "summary"} <= set(host.db.select(f"SELECT term FROM {TERMS_TABLE}"))
    # idempotent: a second run changes nothing and downloads no image again
    images_before = len(upstream.requests_to("/img/0.png"))
    assert host.services[INTEGRATIONS].run_now("news_rss").status == "ok"
    assert articles(host, "loop") == rows
    assert len(upstream.requests_to("/img/0.png")) == images_before


def test_rss_conditional_get_uses_etag_and_last_modified(host, upstream):
    body = rss(upstream.url, 2).encode()
    stamp = "Wed, 05 Jun 2024 10:00:00 GMT"

    def feed(request):
        if (
            request.headers.get("If-None-Match") == '"v1"'
            and request.headers.get("If-Modified-Since") == stamp
        ):
            return Reply(304, {"ETag": '"v1"'}, b"")
        return Reply(
            200, {"Content-Type": "application/rss+xml", "ETag": '"v1"', "Last-Modified": stamp}, body
        )

    upstream.handle("/feed.xml", feed)
    add_feed(host, "cond", upstream.url + "/feed.xml")
    host.services[INTEGRATIONS].run_now("news_rss")
    with orm.db_session:
        assert (host.db.RssFeed["cond"].etag, host.db.RssFeed["cond"].last_modified) == ('"v1"', stamp)
    assert len(articles(host)) == 2
    result = host.services[INTEGRATIONS].run_now("news_rss")
    assert result.status == "ok"
    assert upstream.requests_to("/feed.xml")[-1].headers["If-None-Match"] == '"v1"'
    assert len(articles(host)) == 2
    lines = [line["message"] for line in host.services[INTEGRATION_TELEMETRY].lines()]
    assert "feed cond: not modified" in lines


def test_rss_trims_to_max_articles_and_keeps_suppression(host, upstream):
    serve_images(upstream)
    upstream.reply("/feed.xml", rss(upstream.url, 3), "application/rss+xml")
    add_feed(host, "trim", upstream.url + "/feed.xml", max_articles=2)
    host.services[INTEGRATIONS].run_now("news_rss")
    rows = articles(host, "trim")
    assert [r["guid"] for r in rows] == ["urn:story:1", "urn:story:2"]  # the two newest
    with orm.db_session:
        host.db.RssArticle[rows[1]["id"]].suppressed = True
    upstream.reply("/feed.xml", rss(upstream.url, 3, start=2), "application/rss+xml")  # stories 2, 3, 4
    host.services[INTEGRATIONS].run_now("news_rss")
    rows = articles(host, "trim")
    assert [r["guid"] for r in rows] == ["urn:story:3", "urn:story:4"]
    # the image of a trimmed article is deleted with it
    assert all(host.blobs.get(r["image_blob_key"]) for r in rows)


def test_rss_per_feed_poll_and_atom(host, upstream, env):
    serve_images(upstream)
    upstream.reply("/atom.xml", ATOM.replace("{base}", upstream.url), "application/atom+xml")
    add_feed(host, "atom", upstream.url + "/atom.xml", poll_seconds=600)
    engine = host.services[INTEGRATIONS]
    with orm.db_session:
        host.db.Integration["news_rss"].enabled = True
    assert engine.run_now("news_rss", force=False).status == "ok"
    row = articles(host, "atom")[0]
    assert row["title"] == "Atom entry" and row["image_blob_key"]
    assert row["published_at_ms"] == epoch_ms(2024, 6, 1, 10)
    assert engine.run_now("news_rss", force=False).message == "no feed due"
    assert len(upstream.requests_to("/atom.xml")) == 1
    advance_clock(env, 601_000)
    engine.run_now("news_rss", force=False)
    assert len(upstream.requests_to("/atom.xml")) == 2


def test_one_failing_feed_backs_off_alone(host, upstream):
    upstream.reply("/good.xml", rss(upstream.url, 1), "application/rss+xml")
    add_feed(host, "good", upstream.url + "/good.xml")
    add_feed(host, "bad", upstream.url + "/missing.xml")
    result = host.services[INTEGRATIONS].run_now("news_rss")
    assert result.status == "ok" and "1 failed" in result.message
    with orm.db_session:
        bad, good = host.db.RssFeed["bad"], host.db.RssFeed["good"]
        assert bad.consecutive_failures == 1 and bad.next_retry_at > host.clock.now_ms()
        assert good.consecutive_failures == 0 and good.next_retry_at is None
    errors = [line for line in host.services[INTEGRATION_TELEMETRY].lines() if line["channel"] == "error"]
    assert errors[-1]["integration_type"] == "news_rss" and "HTTP 404" in errors[-1]["message"]


def test_hackernews_front_page(host, upstream):
    upstream.json("/v0/topstories.json", [101, 102, 103])
    upstream.json(
        "/v0/item/101.json",
        {
            "id": 101,
            "type": "story",
            "title": "Show HN: a thing",
            "by": "pg",
            "url": "https://example.org/thing",
            "score": 42,
            "time": 1717236000,
        },
    )
    upstream.json("/v0/item/102.json", {"id": 102, "type": "comment", "text": "no"})
    upstream.json(
        "/v0/item/103.json",
        {"id": 103, "type": "story", "title": "Ask HN: why?", "by": "dang", "score": 7, "time": 1717236100},
    )
    api = host.services[INTEGRATIONS]
    with orm.db_session:
        host.db.Integration["news_hackernews"].config_json = {"baseUrl": upstream.url, "maxStories": 3}
    assert api.run_now("news_hackernews").status == "ok"
    rows = articles(host, "hackernews")
    assert [(r["guid"], r["title"], r["integration_type"]) for r in rows] == [
        ("hn:101", "Show HN: a thing", "news_hackernews"),
        ("hn:103", "Ask HN: why?", "news_hackernews"),
    ]
    assert rows[1]["link"] == "https://news.ycombinator.com/item?id=103"
    assert rows[0]["summary"] == "42 points by pg"


def test_relative_images_and_script_bodies(host, upstream):
    image = serve_images(upstream)
    body = f"""<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>{upstream.url}/</link>
    <description>d</description><item><title>Relative</title><link>{upstream.url}/story/9</link>
    <guid>rel-1</guid><description>&lt;script&gt;steal()&lt;/script&gt;&lt;style&gt;p {{}}&lt;/style&gt;Teaser
    &lt;img src="/img/5.png"&gt;</description></item></channel></rss>"""
    upstream.reply("/feed.xml", body, "application/rss+xml")
    add_feed(host, "rel", upstream.url + "/feed.xml")
    assert host.services[INTEGRATIONS].run_now("news_rss").status == "ok"
    row = articles(host, "rel")[0]
    assert row["summary"] == "Teaser"
    assert host.blobs.get(row["image_blob_key"]).path.read_bytes() == image


# Comparisons, and plain text as feeds send it, "&" included: bare ampersands and legacy entity
# names without ";" ("&not" is one: html.unescape turned "Fish&notes" into "Fish¬es").
@pytest.mark.parametrize("title, description, stored_title, stored_summary", [
    ("3 &lt; 5 and 7 &gt; 2", "x &lt;= y &amp;&amp; y &lt;3 z", "3 < 5 and 7 > 2", "x <= y && y <3 z"),
    ("Fish&amp;notes from AT&amp;T", "&lt;p&gt;Fish &amp;amp; chips&amp;not&lt;/p&gt;", "Fish&notes from AT&T",
     "Fish & chips&not"),
])
def test_rss_titles_with_comparisons_and_ampersands_are_stored_as_written(host, upstream, title, description,
                                                                          stored_title, stored_summary):
    body = f"""<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title><link>{upstream.url}/</link>
    <description>d</description><item><title>{title}</title><link>{upstream.url}/story/1</link>
    <guid>item-1</guid><description>{description}</description></item></channel></rss>"""
    upstream.reply("/feed.xml", body, "application/rss+xml")
    add_feed(host, "written", upstream.url + "/feed.xml")
    assert host.services[INTEGRATIONS].run_now("news_rss").status == "ok"
    row = articles(host, "written")[0]
    assert row["title"] == stored_title
    assert row["summary"] == stored_summary


# No ";" from the random alphabet, so that no complete entity reference (which is decoded, see
# below) forms by chance.
_PLAIN = st.lists(st.one_of(
    st.text(st.characters(blacklist_characters="<;", blacklist_categories=("Cs",)), max_size=30),
    st.sampled_from([" < ", " > ", " <= ", " >= ", "<3", " <- ", "->", "1<2", " << ", "<>",
                     "&not", "Fish&notes", "AT&T", " & ", "&&", "&amp", "&#38", "&copy", "&nbsp", "a&b=c",
                     "&;", "& amp;", "&1;", "&#;", "x &unknown; y"]),
), max_size=8).map("".join)
_HIDDEN = st.text(st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), max_size=30)
# Text as an HTML fragment carries it: escaped, so "&amp;" in the text is "&amp;amp;" on the wire.
_HTML_TEXT = st.lists(st.one_of(_PLAIN, st.sampled_from(["&amp;", "&not;", "&lt;b&gt;", "Tom & Jerry"])),
                      max_size=4).map("".join)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@settings(max_examples=300, deadline=None)
@given(_PLAIN)
def test_plain_text_survives_unchanged(text):
    assert plain_text(text, 10_000) == _normal(text)


@settings(max_examples=300, deadline=None)
@given(_HTML_TEXT, _HIDDEN, _HIDDEN, st.sampled_from(["p", "b", "div", "a href='x'", "span class=\"c\""]))
def test_tags_scripts_and_styles_go(text, script, style, tag):
    name = tag.split()[0]
    fragment = (f"<{tag}>{html.escape(text, quote=False)}</{name}><script>{script}</script>"
                f"<style>{style}</style><!-- a comment --><br/><img src='/x.png'>")
    assert plain_text(fragment, 10_000) == _normal(text)


@pytest.mark.parametrize("value, text", [
    ("Fish&notes", "Fish&notes"),                         # "&not" without ";": text, not the sign
    ("Fish &amp; chips", "Fish & chips"),                 # a feed that escaped twice
    ("&lt;b&gt; is bold", "<b> is bold"),
    ("caf&eacute; &#233; &#xE9;", "café é é"),
    ("<p>Fish&notes &amp; <b>chips</b></p>", "Fish&notes & chips"),
    ("<p>&not;&nbsp;x</p>", "¬ x"),
    ("AT&T; &foo; &#;", "AT&T; &foo; &#;"),
])
def test_complete_entities_are_decoded_and_bare_ampersands_kept(value, text):
    assert plain_text(value, 100) == text


def test_collector_failures_reach_the_console_log(host, upstream, caplog):
    upstream.fault("status500")
    add_feed(host, "broken", upstream.url + "/feed.xml")
    with caplog.at_level("WARNING", logger="builtin_plugins.integrations.engine"):
        assert host.services[INTEGRATIONS].run_now("news_rss").status == "failed"
    assert any("news_rss" in r.getMessage() and "HTTP 500" in r.getMessage() for r in caplog.records), caplog.text


def test_images_of_a_server_that_writes_content_type_in_another_case_are_stored(host, upstream):
    """Python's http.server writes ``Content-type``: the image fetch looked the header up by its
    exact case and stored no picture, logging nothing. A skipped image is logged with its reason."""
    image = png_bytes()
    for name in ("0", "1"):
        upstream.handle(f"/img/{name}.png", lambda _request: Reply(200, {"Content-type": "image/png"}, image))
    upstream.handle("/img/2.png", lambda _request: Reply(200, {"content-TYPE": "text/html"}, b"<html></html>"))
    upstream.reply("/feed.xml", rss(upstream.url), "application/rss+xml")
    add_feed(host, "loop", upstream.url + "/feed.xml", max_articles=10)
    assert host.services[INTEGRATIONS].run_now("news_rss").status == "ok"
    rows = articles(host, "loop")
    stored = [host.blobs.get(row["image_blob_key"]) for row in rows[:2]]
    assert all(blob is not None and blob.path.read_bytes() == image for blob in stored)
    assert rows[2]["image_blob_key"] is None
    warnings = [line["message"] for line in host.services[INTEGRATION_TELEMETRY].lines()
                if line["channel"] == "warning"]
    assert f"media {upstream.url}/img/2.png skipped: content type text/html is not one of image/jpeg, " \
        "image/png, image/webp, image/gif" in warnings, warnings
