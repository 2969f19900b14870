"""Catalog rows and a throwaway Alert entity for content tests (the real one belongs to the alerts plugin)."""
from pony import orm

from hookspecs import hookimpl


class ThrowawayAlertPlugin:
    """Declares ``Alert`` with the fields the alerts plugin provides, for hosts without that plugin."""

    @hookimpl
    def register_entities(self, db):
        if hasattr(db, "Alert"):
            return

        class Alert(db.Entity):
            _table_ = "test_alert"
            id = orm.PrimaryKey(str, 64)
            title = orm.Required(str)
            body = orm.Optional(str, default="")
            source = orm.Required(str)
            severity = orm.Required(str)
            priority = orm.Required(int, default=0)
            expires_at = orm.Optional(int, size=64, nullable=True)
            dismissed_at = orm.Optional(int, size=64, nullable=True)


def add_joke(db, id, setup="Why?", punchline="Because", category_id="jokes", suppressed=False, at=1):
    return db.Joke(id=id, setup=setup, punchline=punchline, category_id=category_id,
                   integration_type="jokes_api", suppressed=suppressed, created_at_ms=at)


def add_trivia(db, id, question="Q?", category_id="trivia", suppressed=False, at=1, integration_type="trivia_api"):
    return db.TriviaQuestion(id=id, question=question, option_a="a1", option_b="b1", option_c="c1", option_d="d1",
                             correct_option="A", category_id=category_id, integration_type=integration_type,
                             suppressed=suppressed, created_at_ms=at)


def add_article(db, id, title="Title", summary="", feed_id="feed", suppressed=False, at=1, image_blob_key=None):
    return db.RssArticle(id=id, feed_id=feed_id, guid=f"guid-{id}", title=title, summary=summary,
                         link=f"https://example.org/{id}", published_at_ms=at, suppressed=suppressed,
                         created_at_ms=at, image_blob_key=image_blob_key)


def add_photo(db, id, alt_text="alt", suppressed=False, at=1, blob_key=None, entity="Photo", **extra):
    fields = dict(id=id, alt_text=alt_text, photographer_name="Ann", data_provider="pexels",
                  media_blob_key=blob_key or f"photos/{id}.jpg", integration_type="photos_api",
                  suppressed=suppressed, created_at_ms=at, **extra)
    if entity == "Video":
        fields.setdefault("duration_seconds", 10.0)
    return getattr(db, entity)(**fields)
