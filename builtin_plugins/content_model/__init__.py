"""The shared content data model: catalog rows (spec 2.8) and interests (spec 2.9).

Collectors write these rows, the catalog/moderation/media routes read and moderate them,
the ticker and the display show them. Declaring them in one plugin keeps one definition
of each table; the features that use them are separate plugins. Reach an entity as
``host.db.<Name>`` (for example ``host.db.RssArticle``).

Conventions:
- ids are strings; collector rows get ``<integration_type>:<external id>`` or a uuid hex;
- ``integration_type`` is the provenance (``manual_entry`` for manual rows);
- ``suppressed`` exists on jokes, trivia, RSS articles, photos and videos (moderation);
- times are epoch milliseconds (``*_ms``); temperatures are stored in degrees Celsius.
"""
from __future__ import annotations

from typing import Any

from pony import orm

from hookspecs import hookimpl

MS = {"size": 64}


@hookimpl
def register_entities(db: Any) -> None:
    # ---- interests (spec 2.9) -------------------------------------------------------
    class WeatherLocation(db.Entity):
        _table_ = "svc_weather_location"
        id = orm.PrimaryKey(str, 64)
        name = orm.Required(str, 200)
        latitude = orm.Required(float)
        longitude = orm.Required(float)
        enabled = orm.Required(bool, default=True)
        include_active_weather_alerts = orm.Required(bool, default=False)

    class RssFeed(db.Entity):
        _table_ = "svc_rss_feed"
        id = orm.PrimaryKey(str, 64)
        url = orm.Required(str, 2048)
        title = orm.Optional(str, 500, nullable=True)
        category = orm.Required(str, 64, default="news")
        poll_seconds = orm.Required(int, default=900)
        max_articles = orm.Required(int, default=50)
        enabled = orm.Required(bool, default=True)
        last_fetched_at = orm.Optional(int, nullable=True, **MS)
        consecutive_failures = orm.Required(int, default=0)
        next_retry_at = orm.Optional(int, nullable=True, **MS)
        etag = orm.Optional(str, 500, nullable=True)
        last_modified = orm.Optional(str, 200, nullable=True)

    class StockSymbol(db.Entity):
        _table_ = "svc_stock_symbol"
        id = orm.PrimaryKey(str, 64)
        symbol = orm.Required(str, 32)
        display_name = orm.Optional(str, 200, default="")
        category = orm.Required(str, 64, default="general")
        enabled = orm.Required(bool, default=True)

    class JokeCategory(db.Entity):
        _table_ = "svc_joke_category"
        id = orm.PrimaryKey(str, 64)  # a curator category id
        enabled = orm.Required(bool, default=True)
        pool_size = orm.Required(int, default=50)
        config_json = orm.Optional(orm.Json, nullable=True)

    class TriviaCategory(db.Entity):
        _table_ = "svc_trivia_category"
        id = orm.PrimaryKey(str, 64)  # a curator category id
        enabled = orm.Required(bool, default=True)
        pool_size = orm.Required(int, default=50)
        min_questions = orm.Required(int, default=10)
        max_questions = orm.Required(int, default=50)
        config_json = orm.Optional(orm.Json, nullable=True)

    # ---- catalog (spec 2.8) ---------------------------------------------------------
    class Joke(db.Entity):
        _table_ = "svc_joke"
        id = orm.PrimaryKey(str, 200)
        setup = orm.Required(str, 4000)
        punchline = orm.Optional(str, 4000, default="")
        category_id = orm.Required(str, 64, index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class TriviaQuestion(db.Entity):
        _table_ = "svc_trivia_question"
        id = orm.PrimaryKey(str, 200)
        question = orm.Required(str, 4000)
        option_a = orm.Required(str, 1000)
        option_b = orm.Required(str, 1000)
        option_c = orm.Optional(str, 1000, default="")
        option_d = orm.Optional(str, 1000, default="")
        correct_option = orm.Required(str, 1)  # A, B, C or D
        category_id = orm.Required(str, 64, index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class RssArticle(db.Entity):
        _table_ = "svc_rss_article"
        id = orm.PrimaryKey(str, 200)
        feed_id = orm.Required(str, 64, index=True)
        guid = orm.Required(str, 2048)
        title = orm.Required(str, 2000)
        summary = orm.Optional(str, 20000, default="")
        link = orm.Optional(str, 2048, default="")
        image_blob_key = orm.Optional(str, 512, nullable=True)
        published_at_ms = orm.Optional(int, nullable=True, index=True, **MS)
        integration_type = orm.Required(str, 100, default="news_rss")
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Photo(db.Entity):
        _table_ = "svc_photo"
        id = orm.PrimaryKey(str, 200)
        alt_text = orm.Optional(str, 2000, default="")
        photographer_name = orm.Optional(str, 500, default="")
        photographer_url = orm.Optional(str, 2048, default="")
        source_url = orm.Optional(str, 2048, default="")
        data_provider = orm.Required(str, 100)
        media_blob_key = orm.Required(str, 512)
        category_id = orm.Required(str, 64, default="photos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Video(db.Entity):
        _table_ = "svc_video"
        id = orm.PrimaryKey(str, 200)
        alt_text = orm.Optional(str, 2000, default="")
        photographer_name = orm.Optional(str, 500, default="")
        photographer_url = orm.Optional(str, 2048, default="")
        source_url = orm.Optional(str, 2048, default="")
        data_provider = orm.Required(str, 100)
        media_blob_key = orm.Required(str, 512)
        duration_seconds = orm.Required(float)
        category_id = orm.Required(str, 64, default="videos", index=True)
        integration_type = orm.Required(str, 100)
        suppressed = orm.Required(bool, default=False, index=True)
        created_at_ms = orm.Required(int, **MS)

    class Quote(db.Entity):
        _table_ = "svc_quote"
        id = orm.PrimaryKey(str, 200)
        text = orm.Required(str, 4000)
        author = orm.Optional(str, 500, default="")
        category_id = orm.Required(str, 64, default="general")
        integration_type = orm.Required(str, 100)
        created_at_ms = orm.Required(int, **MS)

    class StockQuote(db.Entity):
        _table_ = "svc_stock_quote"
        symbol_id = orm.PrimaryKey(str, 64)  # the interests stock symbol id: latest quote only
        symbol = orm.Required(str, 32)
        display_name = orm.Optional(str, 200, default="")
        price = orm.Required(float)
        change = orm.Optional(float, nullable=True)
        change_percent = orm.Optional(float, nullable=True)
        currency = orm.Optional(str, 8, default="")
        as_of_ms = orm.Required(int, **MS)
        integration_type = orm.Required(str, 100)

    class WeatherCurrent(db.Entity):
        _table_ = "svc_weather_current"
        location_id = orm.PrimaryKey(str, 64)  # latest snapshot per interests location
        location_name = orm.Required(str, 200)
        description = orm.Optional(str, 500, default="")
        temp_c = orm.Optional(float, nullable=True)
        icon_blob_key = orm.Optional(str, 512, nullable=True)
        observed_at_ms = orm.Optional(int, nullable=True, **MS)
        forecast_json = orm.Optional(orm.Json, nullable=True)  # daily forecast list, when collected
        air_quality_json = orm.Optional(orm.Json, nullable=True)
        integration_type = orm.Required(str, 100)

    class WeatherAlert(db.Entity):
        _table_ = "svc_weather_alert"
        location_id = orm.Required(str, 64, index=True)
        alert_id = orm.Required(str, 500)
        orm.PrimaryKey(location_id, alert_id)
        event = orm.Required(str, 500)
        headline = orm.Optional(str, 2000, default="")
        severity = orm.Optional(str, 64, default="")
        excerpt = orm.Optional(str, 4000, default="")
        location_name = orm.Required(str, 200)
        starts_ms = orm.Optional(int, nullable=True, **MS)
        ends_ms = orm.Optional(int, nullable=True, **MS)
        integration_type = orm.Required(str, 100)

    class CalendarEvent(db.Entity):
        _table_ = "svc_calendar_event"
        id = orm.PrimaryKey(str, 300)
        title = orm.Required(str, 2000)
        location = orm.Optional(str, 2000, default="")
        description = orm.Optional(str, 20000, default="")
        source = orm.Required(str, 100)  # calendar_google, calendar_microsoft, calendar_ical, manual_entry...
        start_ms = orm.Required(int, index=True, **MS)
        end_ms = orm.Required(int, **MS)
        all_day = orm.Required(bool, default=False)
        category_id = orm.Optional(str, 64, nullable=True, index=True)  # primary category
        integration_id = orm.Optional(str, 100, nullable=True)
        categories = orm.Set("CalendarEventCategory", cascade_delete=True)

    class CalendarEventCategory(db.Entity):
        _table_ = "svc_calendar_event_category"
        event = orm.Required(CalendarEvent)
        category_id = orm.Required(str, 64, index=True)
        orm.PrimaryKey(event, category_id)

    class Task(db.Entity):
        _table_ = "svc_task"
        id = orm.PrimaryKey(str, 300)
        title = orm.Required(str, 2000)
        list_label = orm.Optional(str, 500, default="")
        board_key = orm.Required(str, 200, index=True)
        due_at_ms = orm.Optional(int, nullable=True, **MS)
        completed = orm.Required(bool, default=False)
        integration_type = orm.Required(str, 100)
        integration_id = orm.Required(str, 100)
