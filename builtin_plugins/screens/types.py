"""The builtin screen (slide) types: id, label, ``config_json`` schema and a valid example.

``renderer`` is left ``None`` here; the display attaches renderers to these same ids.
``TYPES`` is the list ``register_screen_types`` returns.
"""
from __future__ import annotations

from hookspecs import ScreenType
from builtin_plugins.common.jsonschema_parts import (
    BLOB_KEY,
    DATE_ORDER,
    HEX_COLOR,
    ID_REF,
    SLUG,
    TEMPERATURE_UNIT,
    TIME_ZONE,
    array,
    boolean,
    enum,
    integer,
    number,
    obj,
    text,
)

TIME_FORMAT_PRESETS = ("24h_hms", "24h_hm", "12h_hms_tt", "12h_hm_tt", "12h_hms", "12h_hm")
TIME_FORMAT_PRESET = {"enum": list(TIME_FORMAT_PRESETS)}
CATEGORY_IDS = array(SLUG, 20)
ALERT_SEVERITIES = ("info", "warning", "critical")

TYPES: list[ScreenType] = [
    ScreenType(
        id="message",
        label="Message",
        description="A static title and body of text.",
        config_schema=obj("message", {
            "title": text(200),
            "body": text(2000, 1),
            "textAlign": enum("left", "center", "right"),
            "backgroundColor": HEX_COLOR,
            "textColor": HEX_COLOR,
        }, required=("body",)),
        example_config={"title": "Welcome", "body": "Lunch is served in the atrium at noon.", "textAlign": "center"},
    ),
    ScreenType(
        id="clock",
        label="Clock",
        description="Large time and date in a time zone (display timezone when omitted).",
        config_schema=obj("clock", {
            "timeZone": TIME_ZONE,
            "timeFormatPreset": TIME_FORMAT_PRESET,
            "dateOrder": DATE_ORDER,
            "showDate": boolean(),
            "label": text(100),
            "style": enum("digital", "analog"),
        }),
        example_config={"timeZone": "Europe/Berlin", "timeFormatPreset": "24h_hm", "showDate": True,
                        "label": "Berlin"},
    ),
    ScreenType(
        id="weather_current",
        label="Current weather",
        description="Current conditions of one interests weather location.",
        config_schema=obj("weather_current", {
            "locationId": ID_REF,
            "temperatureUnit": TEMPERATURE_UNIT,
            "showAirQuality": boolean(),
            "showAlerts": boolean(),
        }, required=("locationId",)),
        example_config={"locationId": "home", "temperatureUnit": "c", "showAlerts": True},
    ),
    ScreenType(
        id="weather_forecast",
        label="Weather forecast",
        description="Daily forecast of one interests weather location.",
        config_schema=obj("weather_forecast", {
            "locationId": ID_REF,
            "days": integer(1, 10),
            "temperatureUnit": TEMPERATURE_UNIT,
        }, required=("locationId",)),
        example_config={"locationId": "home", "days": 5, "temperatureUnit": "f"},
    ),
    ScreenType(
        id="news_headlines",
        label="News headlines",
        description="A list of recent RSS headlines (suppressed articles never shown).",
        config_schema=obj("news_headlines", {
            "feedIds": array(ID_REF, 50),
            "category": SLUG,
            "maxItems": integer(1, 20),
            "maxAgeHours": integer(1, 720),
            "showSource": boolean(),
        }),
        example_config={"feedIds": ["bbc-world"], "maxItems": 6, "maxAgeHours": 24},
    ),
    ScreenType(
        id="news_article",
        label="News article",
        description="One RSS article with its image and summary; pair with require_news_photo.",
        config_schema=obj("news_article", {
            "feedIds": array(ID_REF, 50),
            "category": SLUG,
            "maxAgeHours": integer(1, 720),
            "showSummary": boolean(),
            "showQrLink": boolean(),
        }),
        example_config={"category": "news", "maxAgeHours": 48, "showSummary": True, "showQrLink": True},
    ),
    ScreenType(
        id="photo",
        label="Photo",
        description="A photo from the catalog, by content category.",
        config_schema=obj("photo", {
            "category": SLUG,
            "fit": enum("contain", "cover"),
            "showAttribution": boolean(),
            "kenBurns": boolean(),
        }),
        example_config={"category": "photos", "fit": "cover", "showAttribution": True},
    ),
    ScreenType(
        id="video",
        label="Video",
        description="A video from the catalog, by content category.",
        config_schema=obj("video", {
            "category": SLUG,
            "muted": boolean(),
            "maxDurationSeconds": integer(1, 3600),
            "showAttribution": boolean(),
        }),
        example_config={"category": "videos", "muted": True, "maxDurationSeconds": 60},
    ),
    ScreenType(
        id="joke",
        label="Joke",
        description="A setup, then the punchline after a delay.",
        config_schema=obj("joke", {
            "categoryId": SLUG,
            "revealDelaySeconds": number(0, 120),
        }),
        example_config={"categoryId": "dad-jokes", "revealDelaySeconds": 6},
    ),
    ScreenType(
        id="trivia",
        label="Trivia",
        description="A question with options; the answer is revealed after a delay.",
        config_schema=obj("trivia", {
            "categoryId": SLUG,
            "answerDelaySeconds": number(1, 300),
            "showOptions": boolean(),
        }),
        example_config={"categoryId": "science", "answerDelaySeconds": 12, "showOptions": True},
    ),
    ScreenType(
        id="stock_quotes",
        label="Stock quotes",
        description="Latest quotes of interests stock symbols.",
        config_schema=obj("stock_quotes", {
            "symbols": array({"type": "string", "pattern": "^[A-Za-z0-9.^=\\-]{1,32}$"}, 30),
            "category": SLUG,
            "showChange": boolean(),
        }),
        example_config={"symbols": ["AAPL", "MSFT"], "showChange": True},
    ),
    ScreenType(
        id="calendar_agenda",
        label="Calendar agenda",
        description="Upcoming calendar events as a list.",
        config_schema=obj("calendar_agenda", {
            "categoryIds": CATEGORY_IDS,
            "daysAhead": integer(1, 60),
            "maxEvents": integer(1, 50),
            "showLocation": boolean(),
        }),
        example_config={"categoryIds": ["family"], "daysAhead": 7, "maxEvents": 8, "showLocation": True},
    ),
    ScreenType(
        id="calendar_month",
        label="Calendar month",
        description="A month grid with event markers.",
        config_schema=obj("calendar_month", {
            "categoryIds": CATEGORY_IDS,
            "weekStartsOn": enum("monday", "sunday"),
            "highlightToday": boolean(),
        }),
        example_config={"weekStartsOn": "monday", "highlightToday": True},
    ),
    ScreenType(
        id="task_board",
        label="Task board",
        description="Open tasks of one board; boardKey matches an integration boardIds entry.",
        config_schema=obj("task_board", {
            "boardKey": text(200, 1),
            "title": text(200),
            "showCompleted": boolean(),
            "maxTasks": integer(1, 100),
        }, required=("boardKey",)),
        example_config={"boardKey": "5f1c2a9e8d", "title": "Chores", "maxTasks": 12},
    ),
    ScreenType(
        id="alerts",
        label="Alerts",
        description="Active operator alerts.",
        config_schema=obj("alerts", {
            "minSeverity": enum(*ALERT_SEVERITIES),
            "maxAlerts": integer(1, 20),
            "sources": array(text(100, 1), 20),
        }),
        example_config={"minSeverity": "warning", "maxAlerts": 5},
    ),
    ScreenType(
        id="qr_code",
        label="QR code",
        description="A QR code of a payload, with an optional caption.",
        config_schema=obj("qr_code", {
            "payload": text(2048, 1),
            "caption": text(200),
            "foreground": HEX_COLOR,
            "background": HEX_COLOR,
        }, required=("payload",)),
        example_config={"payload": "https://example.org/menu", "caption": "Today's menu"},
    ),
    ScreenType(
        id="controller_invite",
        label="Controller invite",
        description="A QR code inviting people to the controller app (SVC_DISPLAY_CONTROLLER_PUBLIC_URL).",
        config_schema=obj("controller_invite", {
            "headline": text(200),
            "showUrl": boolean(),
            "urlOverride": {"type": "string", "maxLength": 2048, "pattern": "^https?://[^\\s]+$"},
        }),
        example_config={"headline": "Control this screen from your phone", "showUrl": True},
    ),
    ScreenType(
        id="plugin_template",
        label="Plugin template",
        description="A slide drawn from a plugin's template with data the plugin supplies.",
        config_schema=obj("plugin_template", {
            "pluginId": SLUG,
            "template": text(200, 1),
            "data": {"type": "object", "maxProperties": 100},
            "backgroundBlobKey": BLOB_KEY,
        }, required=("pluginId", "template")),
        example_config={"pluginId": "lunch-menu", "template": "menu_card", "data": {"dish": "Pasta"}},
    ),
]
