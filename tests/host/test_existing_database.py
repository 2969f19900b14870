"""Starting on a database made by an earlier build: moved tables and migrations keep their data.

``data/main-database.sqlite3.gz`` was made by the code of main before the feature folders
(``svc-display migrate`` on an empty data dir, then a few rows added with sqlite3: an RSS
feed and three articles, a joke, a weather location and its snapshot, a calendar event with
a second category). Its ``svc_applied_migration`` records the RSS search-index migrations
under the ``catalog`` plugin, which no longer owns them: they must not run again, and
``schema_version`` (a count of applied migrations, which a restore compares as
``backup_too_new``) must not jump.
"""
import gzip
import sqlite3
from pathlib import Path

import pytest

from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api

FIXTURE = Path(__file__).parent / "data" / "main-database.sqlite3.gz"


def applied(path: Path) -> set[tuple[str, str]]:
    connection = sqlite3.connect(path)
    try:
        return set(connection.execute("SELECT plugin, migration_id FROM svc_applied_migration"))
    finally:
        connection.close()


@pytest.fixture
def old_database(env):
    data = Path(env["SVC_DISPLAY_DATA_DIR"])
    data.mkdir(parents=True, mode=0o700)
    path = data / "svc_display.sqlite3"
    path.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    path.chmod(0o600)
    return path


def test_the_previous_layout_starts_without_running_moved_migrations_again(old_database, make_host):
    before = applied(old_database)
    assert ("catalog", "rss_article_search_index") in before and len(before) == 5
    host = make_host()
    assert applied(old_database) == before
    assert host.schema_version() == len(before)
    # a backup of this database is not "too new" for this build: every recorded migration is known
    assert before <= {(recorded, migration.id) for recorded, migration in host.registries.migrations}

    api = Api(host, issue_key(host, "admin"))
    found = api.get("/v1/catalog/rss-articles", params={"title": "storm"}).json
    assert sorted(item["id"] for item in found["items"]) == ["news_rss:0", "news_rss:2"]
    assert api.get("/v1/interests/rss-feeds/local").json["title"] == "Local"
    assert api.get("/v1/catalog/jokes").json["items"][0]["punchline"] == "Because."
    assert api.get("/v1/catalog/weather-current").json["items"][0]["temp_c"] == 21.5
    events = api.get("/v1/catalog/calendar-events", params={"category": "general"}).json["items"]
    assert [(e["id"], e["category_ids"]) for e in events] == [("e1", ["calendar", "general"])]
