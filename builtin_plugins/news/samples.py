"""Sample news for ``svc-display gallery`` (the ``display_samples`` hook): the feed ``bbc-world``
the types' examples name, with a few recent articles, pictures and links; one with a long
headline and a summary of about 200 characters among the newest, as real feeds have (the scenes of
``svc-display gallery --scenes`` show how the types lay it out)."""
from __future__ import annotations

from typing import Any

from svc_host.kit.samples import landscape_png

ARTICLES = [
    ("City opens its first solar-powered library on the river front, open until midnight on weekdays",
     "The new building on the river front produces more energy than it uses: its roof and south wall "
     "carry solar panels, and the surplus heats the swimming pool next door through the winter months.",
     ((70, 140, 220), (70, 150, 80))),
    ("Night trains return to three northern routes after a five-year pause, with sleeper cars again",
     "Sleeper services resume next month after a five-year pause, with bookings opening on Monday; the "
     "operator adds a bicycle carriage and a quiet car, and children under twelve travel for free.",
     ((40, 50, 110), (60, 70, 90))),
    ("Local team wins the regional robotics final",
     "Students from the technical school built a robot that sorts recycling in under two seconds.",
     ((230, 150, 80), (120, 110, 60))),
    ("Spring market moves to the old harbour",
     "More than eighty stalls, live music and a ferry every twenty minutes from the main square.",
     ((120, 190, 240), (50, 120, 160))),
]


def write(host: Any) -> None:
    db, now = host.db, host.clock.now_ms()
    db.RssFeed(id="bbc-world", url="https://feeds.example.org/world", title="World News", category="news")
    for i, (title, summary, (sky, ground)) in enumerate(ARTICLES):
        key = f"samples/news-{i}.png"
        host.blobs.put(key, landscape_png((960, 540), sky, ground), "image/png")
        db.RssArticle(id=f"sample-{i}", feed_id="bbc-world", guid=f"sample-{i}", title=title, summary=summary,
                      link=f"https://news.example.org/articles/{i + 1}", image_blob_key=key,
                      published_at_ms=now - (i * 47 + 12) * 60_000, created_at_ms=now - i * 60_000)
