"""One folder per feature (docs/architecture.md, "Where each feature lives"): each feature plugin
owns its tables, collectors, types and content lists, disabling it removes them everywhere, and
each works on its own with the domains it plugs into."""
from importlib import metadata

import pytest

from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api

# plugin -> what it contributes: slide, overlay, ticker and integration types, content lists,
# entities (tables), and a route it serves.
LAYOUT = {
    "weather": dict(screens={"weather_current", "weather_forecast"}, tickers={"weather"},
                    integrations={"weather_openmeteo", "air_quality_openmeteo", "weather_alerts_nws"},
                    lists={"weather-current", "weather-alerts"},
                    entities={"WeatherLocation", "WeatherCurrent", "WeatherAlert"},
                    route="/v1/interests/weather-locations"),
    "news": dict(screens={"news_headlines", "news_article"}, tickers={"news"},
                 integrations={"news_rss", "news_hackernews"}, lists={"rss-articles"},
                 entities={"RssFeed", "RssArticle"}, route="/v1/interests/rss-feeds"),
    "calendar": dict(screens={"calendar_agenda", "calendar_month"},
                     overlays={"calendar_month", "calendar_upcoming"},
                     integrations={"calendar_ical", "calendar_google", "calendar_microsoft", "calendar_nutrislice"},
                     lists={"calendar-events"}, entities={"CalendarEvent", "CalendarEventCategory"},
                     route="/v1/curator/manual/calendar-events"),
    "stocks": dict(screens={"stock_quotes"}, overlays={"stock_quote"}, tickers={"stocks"},
                   integrations={"stock_finnhub"}, lists={"stock-quotes"},
                   entities={"StockSymbol", "StockQuote"},
                   route="/v1/interests/stock-symbols"),
    "media": dict(screens={"photo", "video"}, overlays={"photo_slideshow"},
                  integrations={"photo_pexels", "video_pexels", "photo_unsplash", "photo_nasa_apod", "photo_webdav",
                                "video_webdav"},
                  lists={"photos", "videos"}, entities={"Photo", "Video"}, route="/v1/curator/manual/photos"),
    "content": dict(screens={"joke", "trivia"}, tickers={"quote"},
                    integrations={"trivia_opentdb", "joke_icanhazdadjoke", "quote_zenquotes",
                                  "general_openai"},
                    lists={"jokes", "trivia", "quotes", "joke-categories", "trivia-categories"},
                    entities={"Joke", "TriviaQuestion", "Quote", "JokeCategory", "TriviaCategory"},
                    route="/v1/curator/manual/jokes"),
    "menu_board": dict(screens={"menu_board"}, integrations={"menu_board_csv"}, entities={"MenuBoardItem"}),
    "tasks": dict(screens={"task_board"}, integrations={"tasks_trello"}, lists={"tasks"}, entities={"Task"}),
    "home_assistant": dict(integrations={"home_assistant"}),
    "clock": dict(screens={"clock"}, overlays={"digital_clock", "analog_clock"}, tickers={"time"}),
    "basic": dict(screens={"message", "qr_code", "controller_invite"}, overlays={"qr_code", "static_image"},
                  tickers={"text"}),
    "effects": dict(overlays={"shape_rain", "birthday_confetti", "bouncing_message", "falling_images",
                              "matrix_rain", "edge_glow", "floating_balloons", "cloud_drift"}),
    "folder_plugins": dict(screens={"plugin_template"}, overlays={"plugin_template", "plugin_web"},
                           tickers={"plugin"}, integrations={"plugin_http"}),
    "alerts": dict(screens={"alerts"}, lists={"alerts"}, entities={"Alert"}, route="/v1/alerts"),
}
REGISTRIES = {"screens": "screen_types", "overlays": "overlay_types", "tickers": "ticker_types",
              "integrations": "integration_types"}
BUILTINS = sorted(ep.name for ep in metadata.entry_points(group="svc_display.plugins")
                  if ep.dist is not None and ep.dist.name == "svc-display")


def contributions(host, plugin):
    found = {kind: {t for t, owner in getattr(host.registries, name).owner.items() if owner == plugin}
             for kind, name in REGISTRIES.items()}
    found["lists"] = {path for path, owner in host.registries.content_list_owners.items() if owner == plugin}
    return {kind: items for kind, items in found.items() if items}


def test_each_type_and_content_list_lives_in_its_feature_folder(host):
    for plugin, expected in LAYOUT.items():
        wanted = {kind: items for kind, items in expected.items() if kind in (*REGISTRIES, "lists")}
        assert contributions(host, plugin) == wanted, plugin
    for domain in ("screens", "ticker", "overlays", "catalog", "moderation", "curator"):
        assert contributions(host, domain) == {}, f"the {domain} domain contributes no type or list"
    every = {kind: set(getattr(host.registries, name).types) for kind, name in REGISTRIES.items()}
    for kind, types in every.items():
        assert types == set().union(*(e.get(kind, set()) for e in LAYOUT.values())), kind


@pytest.mark.parametrize("plugin", sorted(LAYOUT))
def test_disabling_a_feature_removes_it_everywhere(make_host, plugin):
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": plugin})
    expected = LAYOUT[plugin]
    for kind, name in REGISTRIES.items():
        assert not expected.get(kind, set()) & set(getattr(host.registries, name).types), kind
    assert not expected.get("lists", set()) & set(host.registries.content_lists)
    assert not [name for name in expected.get("entities", ()) if getattr(host.db, name, None) is not None]
    paths = {route.path for _, route in host.routes}
    if "route" in expected:
        assert expected["route"] not in paths
    for path in expected.get("lists", ()):
        assert f"/v1/catalog/{path}" not in paths
        assert not any(p.startswith(f"/v1/content/{path}/") for p in paths)


@pytest.mark.parametrize("plugin", sorted(p for p in LAYOUT if LAYOUT[p].get("screens")))
def test_a_feature_works_with_only_the_domains_it_plugs_into(make_host, plugin):
    keep = {"screens", "overlays", "ticker", "clients", "settings", "integrations", "catalog", plugin}
    host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": ",".join(sorted(set(BUILTINS) - keep))})
    api = Api(host, issue_key(host, "admin"))
    for type_id in sorted(LAYOUT[plugin]["screens"]):
        example = host.registries.screen_types.get(type_id).example_config
        body = {"id": type_id, "screen_type": type_id, "config_json": example}
        created = api.post("/v1/screens", json=body)
        assert created.status_code == 201, (type_id, created.text)
    for path in sorted(LAYOUT[plugin].get("lists", ())):
        if host.registries.content_lists[path].catalog:
            assert api.get(f"/v1/catalog/{path}").status_code == 200, path
    for type_id in sorted(LAYOUT[plugin].get("integrations", ())):
        assert api.get(f"/v1/integrations/{type_id}").status_code == 200, type_id
