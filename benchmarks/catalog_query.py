"""Catalog query benchmark: RSS article substring filters on a large table.

Builds a host (real migrations: FTS5 word and trigram indexes, term list and triggers on SQLite, pg_trgm GIN
indexes on PostgreSQL), bulk-inserts N synthetic RSS articles (titles drawn from a
Zipf-distributed vocabulary of 20,000 pseudo-words), (one row in 500 suppressed), then measures
``GET /v1/catalog/rss-articles?...&limit=25`` through the real Falcon app (auth, query
validation, SQL, serialization) for several filters, and the same filters as a plain
scan (no search index) as the baseline. Totals of both paths are compared.

    .venv/bin/python benchmarks/catalog_query.py --rows 1000000 --runs 60
    .venv/bin/python benchmarks/catalog_query.py --rows 100000 --database-url postgresql://postgres@127.0.0.1:5432/bench

Results go to stdout as a Markdown table (docs/performance.md records them).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pony import orm  # noqa: E402

from builtin_plugins.catalog.queries import CatalogQuery  # noqa: E402
from builtin_plugins.news.search_index import sync_terms  # noqa: E402
from builtin_plugins.catalog.routes import catalog_of  # noqa: E402
from svc_host.config import load_settings  # noqa: E402
from svc_host.host import build_host  # noqa: E402
from svc_display.testing.clients import ApiClient, issue_key  # noqa: E402

VOCABULARY = 20_000
CONSONANTS = "bcdfghjklmnprstvwz"
VOWELS = "aeiou"


def vocabulary(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCABULARY:
        syllables = rng.randint(2, 4)
        words.add("".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables)))
    ranked = sorted(words)
    rng.shuffle(ranked)  # a fixed, arbitrary rank order (same seed, same order)
    return ranked


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


def insert_rows(db, rows: int, rng: random.Random, words: list[str]) -> float:
    """Bulk insert through the raw connection (triggers keep the index in sync); rows/s."""
    weights = zipf_weights(len(words))
    cumulative = []
    total = 0.0
    for weight in weights:
        total += weight
        cumulative.append(total)
    feeds = [f"feed-{i:02d}" for i in range(40)]
    batch = 10_000
    placeholder = "?" if db.provider_name == "sqlite" else "%s"
    sql = ("INSERT INTO svc_rss_article (id, feed_id, guid, title, summary, link, image_blob_key, published_at_ms, "
           "integration_type, suppressed, created_at_ms) VALUES (" + ", ".join([placeholder] * 11) + ")")
    started = time.perf_counter()
    for start in range(0, rows, batch):
        values = []
        for index in range(start, min(rows, start + batch)):
            title_words = rng.choices(words, cum_weights=cumulative, k=rng.randint(5, 10))
            summary_words = rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 14))
            feed = feeds[index % len(feeds)]
            at = 1_700_000_000_000 + index * 60_000
            values.append((f"news_rss:{index}", feed, f"urn:article:{index}", " ".join(title_words).capitalize(),
                           " ".join(summary_words), f"https://news.example/{feed}/{index}", None, at, "news_rss",
                           index % 500 == 0, at))
        with orm.db_session:
            connection = db.get_connection()
            connection.cursor().executemany(sql, values)
            if db.provider_name == "sqlite":
                sync_terms(db)  # as the RSS collector does after each batch
            orm.commit()
        print(f"  inserted {min(rows, start + batch):>9} rows", end="\r", file=sys.stderr)
    print(file=sys.stderr)
    return rows / (time.perf_counter() - started)


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure_http(api: ApiClient, params: dict, runs: int) -> tuple[list[float], int]:
    samples = []
    total = -1
    for _ in range(runs):
        started = time.perf_counter()
        result = api.get("/v1/catalog/rss-articles", params={**params, "limit": 25})
        samples.append((time.perf_counter() - started) * 1000)
        assert result.status_code == 200, result.text
        total = result.json["total"]
    return samples, total


def measure_scan(host, params: dict, runs: int, moderator: bool) -> tuple[list[float], int]:
    catalog = catalog_of(host.db, host.registries.content_lists["rss-articles"])
    samples = []
    total = -1
    for _ in range(runs):
        started = time.perf_counter()
        with orm.db_session:
            query = CatalogQuery(host.db, host.db.RssArticle, catalog, use_fts=False)
            for name, value in params.items():
                query.add_text_filter(name, value)
            if not moderator:
                query.add_suppressed(False)
            total, rows = query.page(25, 0)
            [row.title for row in rows]
        samples.append((time.perf_counter() - started) * 1000)
    return samples, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--baseline-runs", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--data-dir", default=None, help="reuse a data dir built earlier (skips the insert)")
    args = parser.parse_args()

    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="svc-catalog-bench-"))
    env = {"SVC_DISPLAY_DATA_DIR": str(data_dir), "SVC_DISPLAY_HEADLESS": "1", "SVC_DISPLAY_LOG_LEVEL": "WARNING"}
    if args.database_url:
        env["SVC_DISPLAY_DATABASE_URL"] = args.database_url
    host = build_host(load_settings(env))
    rng = random.Random(42)
    words = vocabulary(rng)
    with orm.db_session:
        existing = host.db.RssArticle.select().count()
    rate = None
    if existing == 0:
        print(f"building {args.rows} rows in {data_dir}", file=sys.stderr)
        rate = insert_rows(host.db, args.rows, rng, words)
        with orm.db_session:
            host.db.execute("ANALYZE")
    elif existing != args.rows:
        print(f"data dir holds {existing} rows, not {args.rows}", file=sys.stderr)
        return 2
    reader = ApiClient(host, issue_key(host, "power_viewer", "bench-reader"))
    moderator = ApiClient(host, issue_key(host, "admin", "bench-admin"))

    cases = [
        ("title=<common word, rank 20>", {"title": words[19]}, reader),
        ("title=<word, rank 200>", {"title": words[199]}, reader),
        ("title=<word, rank 2000>", {"title": words[1999]}, reader),
        ("title=<rare word, rank 15000>", {"title": words[14999]}, reader),
        ("title=<word rank 200> as moderator", {"title": words[199]}, moderator),
        ("title=<inner 4 letters of rank 200>", {"title": words[199][2:6]}, reader),
        ("title=<two words, ranks 20 and 21>", {"title": f"{words[19]} {words[20]}"}, reader),
        ("summary=<word, rank 200>", {"summary": words[199]}, reader),
        ("title=<rank 200>&feed_id=feed-07", {"title": words[199], "feed_id": "feed-07"}, reader),
        ("title=<rank 50>&summary=<rank 60>", {"title": words[49], "summary": words[59]}, reader),
        ("guid=article:12345", {"guid": "article:12345"}, reader),
        ("no filter", {}, reader),
    ]
    print(f"\nrows: {args.rows}, backend: {host.db.provider_name}, runs per case: {args.runs} "
          f"(baseline: {args.baseline_runs})")
    if rate:
        print(f"bulk insert with index maintenance: {rate:,.0f} rows/s")
    print("\n| filter | matches (total) | p50 ms | p95 ms | scan baseline p50 ms | baseline / indexed (p50) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, params, api in cases:
        api.get("/v1/catalog/rss-articles", params={**params, "limit": 25})  # warm the cache
        samples, total = measure_http(api, params, args.runs)
        scan, scan_total = measure_scan(host, params, args.baseline_runs, api is moderator)
        assert total == scan_total, f"{label}: indexed total {total} != scan total {scan_total}"
        p50, p95, base = percentile(samples, 50), percentile(samples, 95), statistics.median(scan)
        print(f"| {label} | {total} | {p50:.1f} | {p95:.1f} | {base:.1f} | {base / p50:.0f}x |")
    host.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
