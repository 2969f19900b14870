"""For each builtin collector: the rows and config that make one run talk to the upstream server.

``SETUPS[type_id](host, upstream)`` prepares the host; the fault tests then turn every
upstream answer into a fault and check the run fails cleanly, is backed off and reported.
"""

from __future__ import annotations

from typing import Any, Callable

from pony import orm
from hookspecs.services import ACCOUNTS, INTEGRATIONS


def configure(host: Any, type_id: str, **config: Any) -> None:
    """Store ``config`` as the integration's config_json."""
    with orm.db_session:
        host.db.Integration[type_id].config_json = config


def _secret(host: Any, type_id: str, **values: str) -> None:
    engine = host.services[INTEGRATIONS]
    with orm.db_session:
        for name, value in values.items():
            engine.set_secret(type_id, name, value)


def news_rss(host: Any, upstream: Any) -> None:
    with orm.db_session:
        host.db.RssFeed(id="fault", url=upstream.url + "/feed.xml")


def news_hackernews(host: Any, upstream: Any) -> None:
    configure(host, "news_hackernews", baseUrl=upstream.url)


SETUPS: dict[str, Callable[[Any, Any], None]] = {"news_rss": news_rss, "news_hackernews": news_hackernews}


def _weather_locations(host: Any) -> None:
    with orm.db_session:
        if host.db.WeatherLocation.get(id="fault") is None:
            host.db.WeatherLocation(
                id="fault", name="Fault", latitude=1.5, longitude=2.5, include_active_weather_alerts=True
            )


def _with_location(type_id: str) -> Callable[[Any, Any], None]:
    def setup(host: Any, upstream: Any) -> None:
        _weather_locations(host)
        configure(host, type_id, baseUrl=upstream.url)

    return setup


SETUPS.update(
    {
        "weather_openmeteo": _with_location("weather_openmeteo"),
        "air_quality_openmeteo": _with_location("air_quality_openmeteo"),
        "weather_alerts_nws": _with_location("weather_alerts_nws"),
    }
)


def calendar_ical(host: Any, upstream: Any) -> None:
    configure(host, "calendar_ical", icsUrl=upstream.url + "/cal.ics")


SETUPS["calendar_ical"] = calendar_ical


def trivia_opentdb(host: Any, upstream: Any) -> None:
    with orm.db_session:
        host.db.TriviaCategory(id="fault")
    configure(host, "trivia_opentdb", baseUrl=upstream.url)


def joke_icanhazdadjoke(host: Any, upstream: Any) -> None:
    with orm.db_session:
        host.db.JokeCategory(id="fault")
    configure(host, "joke_icanhazdadjoke", baseUrl=upstream.url)


def general_openai(host: Any, upstream: Any) -> None:
    _secret(host, "general_openai", apiKey="sk-fault-secret")
    configure(host, "general_openai", baseUrl=upstream.url, prompt="a quote")


SETUPS.update(
    {
        "trivia_opentdb": trivia_opentdb,
        "joke_icanhazdadjoke": joke_icanhazdadjoke,
        "quote_zenquotes": lambda host, upstream: configure(host, "quote_zenquotes", baseUrl=upstream.url),
        "general_openai": general_openai,
    }
)


def _media(type_id: str) -> Callable[[Any, Any], None]:
    def setup(host: Any, upstream: Any) -> None:
        _secret(host, type_id, apiKey="media-fault-key")
        configure(host, type_id, baseUrl=upstream.url)

    return setup


def stock_finnhub(host: Any, upstream: Any) -> None:
    with orm.db_session:
        host.db.StockSymbol(id="fault", symbol="FLT")
    _media("stock_finnhub")(host, upstream)


def home_assistant(host: Any, upstream: Any) -> None:
    _secret(host, "home_assistant", token="ha-fault-token")
    configure(host, "home_assistant", baseUrl=upstream.url, entities=[{"entityId": "sensor.x"}])


SETUPS.update(
    {
        "photo_pexels": _media("photo_pexels"),
        "video_pexels": _media("video_pexels"),
        "photo_unsplash": _media("photo_unsplash"),
        "photo_nasa_apod": _media("photo_nasa_apod"),
        "stock_finnhub": stock_finnhub,
        "home_assistant": home_assistant,
        "plugin_http": lambda host, upstream: configure(host, "plugin_http", baseUrl=upstream.url),
    }
)


def _linked(host: Any, type_id: str, account_type: str, token: dict) -> None:
    accounts = host.services[ACCOUNTS]
    with orm.db_session:
        accounts.link(type_id, account_type, "fault", token)


def _calendar(type_id: str, account_type: str) -> Callable[[Any, Any], None]:
    def setup(host: Any, upstream: Any) -> None:
        _linked(host, type_id, account_type, {"access_token": "fault-access", "expires_at_ms": 2**62})
        configure(
            host, type_id, baseUrl=upstream.url, calendars=[{"calendarId": "primary", "categoryId": "work"}]
        )

    return setup


def tasks_trello(host: Any, upstream: Any) -> None:
    _linked(host, "tasks_trello", "trello", {"token": "fault-member-token"})
    _secret(host, "tasks_trello", apiKey="trello-fault-key")
    configure(host, "tasks_trello", baseUrl=upstream.url, boardIds=["b1"])


SETUPS.update(
    {
        "calendar_google": _calendar("calendar_google", "google"),
        "calendar_microsoft": _calendar("calendar_microsoft", "microsoft"),
        "tasks_trello": tasks_trello,
    }
)


def _webdav(type_id: str) -> Callable[[Any, Any], None]:
    def setup(host: Any, upstream: Any) -> None:
        _secret(host, type_id, password="dav-fault-password")
        configure(host, type_id, folderUrl=upstream.url + "/dav/", username="fault")

    return setup


SETUPS.update({"photo_webdav": _webdav("photo_webdav"), "video_webdav": _webdav("video_webdav")})
SETUPS["calendar_nutrislice"] = lambda host, upstream: configure(
    host, "calendar_nutrislice", baseUrl=upstream.url, district="fault", school="fault-school")
SETUPS["menu_board_csv"] = lambda host, upstream: configure(
    host, "menu_board_csv", csvUrl=upstream.url + "/menu.csv", board="main"
)
