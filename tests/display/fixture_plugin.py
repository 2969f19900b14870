"""A throwaway plugin for display tests, loaded next to every builtin (the real types, their
renderers and the real layers): a few extra types whose renderers fail or log on purpose, a
layer that witnesses what change events do (``EventWitness``), a test route that replaces the stored program (the real screen, tape, overlay and alert rows,
then the change events a write publishes), one for settings and key-values, and catalog
seeds. Loaded only by the canvas harness and in-process tests."""
from __future__ import annotations

import io
import logging
from functools import cached_property
from typing import Any

from marshmallow import Schema, fields

from hookspecs import AUTHENTICATED, LayerSpec, Operation, OverlayType, Route, ScreenType, hookimpl
from hookspecs.feature import implementation
from tests.content_media import video_bytes
from hookspecs.services import DISPLAY, EVENTS, PROGRAM_TELEMETRY, SCREENS, SETTINGS

NAME = "display_test_types"


def builtin_types(hook: str) -> list:
    """Every builtin plugin's contribution to ``hook`` (``register_screen_types`` ...): the real
    schemas and examples, each with its renderer reference (for parametrized tests)."""
    from importlib import metadata

    found = []
    for entry_point in sorted(metadata.entry_points(group="svc_display.plugins"), key=lambda e: e.name):
        if entry_point.dist is not None and entry_point.dist.name == "svc-display":
            contribute = implementation(entry_point.load(), hook)  # hand-written or declared in FEATURE
            found.extend(contribute() if contribute is not None else [])
    return found


SCREEN_TYPES = builtin_types("register_screen_types")
OVERLAY_TYPES = builtin_types("register_overlay_types")
ANY = {"type": "object"}
# entity -> the rows of PUT /v1/test-display/program that it stores
PROGRAM_ENTITIES = {"screens": "Screen", "tapes": "TickerTape", "overlays": "OverlaySchedule",
                    "alerts": "Alert"}


def boom(context: Any) -> Any:
    raise RuntimeError("boom: this renderer always fails")


def boom_tick(context: Any) -> Any:
    """An overlay that builds, then fails in its first ``tick``; logs when disposed."""
    from svc_host.kit.display.slide import Slide

    class Ticking(Slide):
        def tick(self, dt: float) -> None:
            raise RuntimeError("boom_tick: this overlay fails every frame")

        def dispose(self) -> None:
            logging.getLogger("display_test").info("boom_tick disposed")

    return Ticking()


def logs_dispose(context: Any) -> Any:
    """An empty overlay that logs when it is disposed (to see the shutdown dispose it)."""
    from svc_host.kit.display.slide import Slide

    layer = Slide()
    layer.on_dispose(lambda: logging.getLogger("display_test").info("overlay %s disposed", context.row.get("id")))
    return layer


def stencil_ring(context: Any) -> Any:
    """A translucent red ring, a wide ``Line`` under a colour with alpha below 1: Kivy draws it
    through a stencil (its bounding box, masked by the line)."""
    from kivy.graphics import Color, Line

    from svc_host.kit.display.slide import Slide

    layer = Slide()
    width, height = context.size
    with layer.canvas:
        Color(1, 0, 0, 0.8)
        Line(circle=(width / 2, height / 2, height * 0.3), width=height * 0.03)
    return layer


class BoomLayer:
    """A layer that loads and applies, then fails in its first ``tick``; logs when disposed."""

    def __init__(self, stage: Any):
        self.stage = stage

    @cached_property
    def widget(self) -> Any:
        from kivy.uix.widget import Widget

        return Widget()

    def load(self) -> Any:
        return {}

    def apply(self, state: Any, restyle: bool) -> None:
        pass

    def tick(self, dt: float) -> None:
        raise RuntimeError("boom_layer: this layer fails every frame")

    def dispose(self) -> None:
        logging.getLogger("display_test").info("boom_layer disposed")


class EventWitness:
    """A layer that draws nothing and records, by frame number (its ``tick`` counts the
    canvas's frames), what a change event does: its publication (on the writing thread), its
    delivery through the display bus (UI thread), each load of the layers following ``screens``
    (with the screen ids that load saw), each program line the slides record and each text a
    marquee segment shows (a refreshing tape's new texts in place). The
    newest witness answers ``GET /v1/test-display/witness``."""

    def __init__(self, stage: Any):
        from collections import deque

        self.stage = stage
        self.host = stage.host
        self.frame = 0
        self.published: deque = deque(maxlen=200)
        self.delivered: deque = deque(maxlen=200)
        self.loads: deque = deque(maxlen=200)
        self.lines: deque = deque(maxlen=200)
        self.segments: deque = deque(maxlen=200)
        self._segment_texts: dict = {}
        self._last_line: Any = None
        events = self.host.services.get(EVENTS)
        self._unsubscribe = events.subscribe(self._published) if events is not None else None
        if self.host.display_bus is not None:
            self.host.display_bus.subscribe("changed", self._delivered)
        WITNESSES.append(self)

    def _published(self, topic: str) -> None:
        self.published.append({"topic": topic, "frame": self.frame})

    def _delivered(self, topic: str) -> None:
        self.delivered.append({"topic": topic, "frame": self.frame})

    @cached_property
    def widget(self) -> Any:
        from kivy.uix.widget import Widget

        return Widget()

    def load(self) -> Any:
        started = self.frame
        screens = [row["id"] for row in self.host.services[SCREENS].enabled()]
        self.loads.append({"frame": started, "screens": screens})
        return {}

    def apply(self, state: Any, restyle: bool) -> None:
        pass

    def tick(self, dt: float) -> None:
        self.frame += 1
        self._watch_the_marquee()
        programs = getattr(self.host.services.get(PROGRAM_TELEMETRY), "programs", None)
        newest_first = programs.query(20) if programs is not None else []
        if not newest_first or newest_first[0] is self._last_line:
            return
        new = []
        for line in newest_first:
            if line is self._last_line:
                break
            new.append(line)
        self._last_line = newest_first[0]
        self.lines.extend({"frame": self.frame, "reason": line["reason"], "slides": [s["id"] for s in line["slides"]]}
                          for line in reversed(new))

    def _watch_the_marquee(self) -> None:
        """Each text a marquee segment shows, once per change: ``{cycle, tape, text, frame}``
        (``cycle`` names the prepared row the segment belongs to, whichever runs show it)."""
        compositor = getattr(self.host.services.get(DISPLAY), "compositor", None)
        entry = compositor.entry("marquee") if compositor is not None else None
        marquee = getattr(entry, "layer", None)
        for run in getattr(marquee, "runs", []):
            for segment in run.row.segments:
                key = (id(run.row), segment.tape.get("id"))
                text = " ".join(item.text for item in segment.items)
                if self._segment_texts.get(key) != text:
                    self._segment_texts[key] = text
                    self.segments.append({"cycle": key[0], "tape": key[1], "text": text, "frame": self.frame})

    def report(self) -> dict:
        return {"frame": self.frame, "published": list(self.published), "delivered": list(self.delivered),
                "loads": list(self.loads), "lines": list(self.lines), "segments": list(self.segments)}

    def dispose(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()


WITNESSES: list[EventWitness] = []


class WitnessResource:
    def on_get(self, req: Any, resp: Any) -> None:
        resp.media = WITNESSES[-1].report() if WITNESSES else {}


class Program(Schema):
    screens = fields.List(fields.Dict(), load_default=list)
    tapes = fields.List(fields.Dict(), load_default=list)
    overlays = fields.List(fields.Dict(), load_default=list)
    alerts = fields.List(fields.Dict(), load_default=list)


class Settings(Schema):
    settings = fields.Dict(load_default=dict)
    key_values = fields.Dict(keys=fields.String(), values=fields.String(), load_default=dict)


def store_row(host: Any, entity: Any, row: dict, now: int) -> None:
    """``row`` as a stored row of ``entity``: keys the entity has, its timestamps filled in."""
    values = {key: value for key, value in row.items() if key in entity._adict_}
    for stamp in ("created_at_ms", "updated_at_ms"):
        if stamp in entity._adict_:
            values.setdefault(stamp, now)
    if entity.__name__ == "Alert":
        values.setdefault("source", "api")
    entity(**values)


class ProgramResource:
    """Replaces every screen, tape, overlay and alert row; the operation publishes their topics."""

    def __init__(self, host: Any):
        self.host = host

    def on_put(self, req: Any, resp: Any) -> None:
        now = self.host.clock.now_ms()
        for key, name in PROGRAM_ENTITIES.items():
            entity = getattr(self.host.db, name)
            entity.select().delete(bulk=True)
            for row in req.context.body[key]:
                store_row(self.host, entity, row, now)
        resp.media = {"ok": True}


class SettingsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_put(self, req: Any, resp: Any) -> None:
        body = req.context.body
        for key, value in body["settings"].items():
            self.host.services[SETTINGS].set(key, value)
        for key, value in body["key_values"].items():
            self.host.services[SETTINGS].put_key_value(key, value)
        resp.media = {"ok": True}


def png(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def seed(host: Any) -> None:
    """Content for every builtin screen type."""
    db, now = host.db, host.clock.now_ms()
    host.blobs.put("test/news.png", png((200, 30, 30)), "image/png")
    host.blobs.put("test/photo.png", png((30, 200, 30)), "image/png")
    host.blobs.put("test/icon.png", png((250, 250, 0)), "image/png")
    host.blobs.put("test/blue.png", png((0, 0, 255)), "image/png")
    host.blobs.put("test/video.mp4", video_bytes([(220, 20, 20), (20, 20, 220)], seconds_each=1.0), "video/mp4")
    db.RssArticle(id="a1", feed_id="f1", guid="g1", title="Kivy draws the news", summary="A summary.",
                  image_blob_key="test/news.png", published_at_ms=now, created_at_ms=now)
    db.RssArticle(id="a2", feed_id="f1", guid="g2", title="No picture here", published_at_ms=now - 1000,
                  created_at_ms=now)
    db.Photo(id="p1", alt_text="Green", photographer_name="Tester", data_provider="manual_entry",
             media_blob_key="test/photo.png", integration_type="manual_entry", created_at_ms=now)
    db.Video(id="v1", alt_text="A video", data_provider="manual_entry", media_blob_key="test/video.mp4",
             duration_seconds=12, integration_type="manual_entry", created_at_ms=now)
    db.Joke(id="j1", setup="Why did the canvas blush?", punchline="It saw the Fbo.", category_id="general",
            integration_type="manual_entry", created_at_ms=now)
    db.TriviaQuestion(id="t1", question="2 + 2?", option_a="3", option_b="4", option_c="5", option_d="6",
                      correct_option="B", category_id="general", integration_type="manual_entry", created_at_ms=now)
    db.StockQuote(symbol_id="s1", symbol="ACME", display_name="Acme", price=12.5, change=0.5, change_percent=4.2,
                  currency="USD", as_of_ms=now, integration_type="stock_test")
    db.WeatherCurrent(location_id="home", location_name="Home", description="Sunny", temp_c=21.0,
                      icon_blob_key="test/icon.png", observed_at_ms=now, integration_type="weather_openmeteo",
                      forecast_json=[{"label": "Mon", "max_c": 22, "min_c": 12, "description": "Sun"},
                                     {"label": "Tue", "max_c": 18, "min_c": 10, "description": "Rain"}])
    db.CalendarEvent(id="e1", title="Team lunch", source="manual_entry", start_ms=now + 3_600_000,
                     end_ms=now + 7_200_000, category_id="general")
    db.Task(id="k1", title="Water the plants", list_label="Home", board_key="board1",
            integration_type="tasks_test", integration_id="tasks1")
    db.Quote(id="q1", text="Simple is better.", author="Someone", integration_type="manual_entry",
             created_at_ms=now)
    db.MenuBoardItem(id="main:0", board="main", position=0, section="Coffee", name="Flat white", price="3.90",
                     integration_type="menu_board_csv")


def seed_examples(host: Any) -> None:
    """Content the builtin types' ``example_config`` point at (feed ``bbc-world``, joke
    category ``dad-jokes``, board ``5f1c2a9e8d``, blob ``overlays/pumpkin.png`` ...)."""
    db, now = host.db, host.clock.now_ms()
    host.blobs.put("overlays/pumpkin.png", png((255, 140, 0)), "image/png")
    host.blobs.put("overlays/frame.png", png((120, 0, 200)), "image/png")
    db.RssFeed(id="bbc-world", url="https://feeds.invalid/world", title="World", category="news")
    db.RssArticle(id="a3", feed_id="bbc-world", guid="g3", title="Example headline", summary="Example summary.",
                  link="https://news.invalid/a3", image_blob_key="test/news.png", published_at_ms=now,
                  created_at_ms=now)
    db.Joke(id="j2", setup="What do you call a fake noodle?", punchline="An impasta.", category_id="dad-jokes",
            integration_type="manual_entry", created_at_ms=now)
    db.TriviaQuestion(id="t2", question="H2O is?", option_a="Water", option_b="Salt", correct_option="A",
                      category_id="science", integration_type="manual_entry", created_at_ms=now)
    db.StockQuote(symbol_id="aapl", symbol="AAPL", display_name="Apple", price=190.0, change=-1.5,
                  change_percent=-0.8, currency="USD", as_of_ms=now, integration_type="stock_test")
    event = db.CalendarEvent(id="e2", title="Family dinner", source="manual_entry", start_ms=now + 86_400_000,
                             end_ms=now + 90_000_000, category_id="family")
    db.CalendarEventCategory(event=event, category_id="family")
    db.Task(id="k3", title="Buy milk", board_key="5f1c2a9e8d", integration_type="tasks_test",
            integration_id="tasks1")


class SeedResource:
    def __init__(self, host: Any, examples: bool = False):
        self.host = host
        self.examples = examples

    def on_post(self, req: Any, resp: Any) -> None:
        if self.host.db.Joke.get(id="j1") is None:
            seed(self.host)
        if self.examples and self.host.db.Joke.get(id="j2") is None:
            seed_examples(self.host)
        resp.media = {"ok": True}


@hookimpl
def register_screen_types() -> list:
    return [ScreenType("boom", "always fails", ANY, {}, renderer=boom)]


@hookimpl
def register_overlay_types() -> list:
    return [OverlayType("boom_overlay", "always fails", ANY, {}, renderer=boom),
            OverlayType("boom_tick", "fails in tick", ANY, {}, renderer=boom_tick),
            OverlayType("logs_dispose", "logs its dispose", ANY, {}, renderer=logs_dispose),
            OverlayType("stencil_ring", "draws through a stencil", ANY, {}, renderer=stencil_ring)]


@hookimpl
def register_display_layers() -> list:
    return [LayerSpec("boom_layer", 350, BoomLayer, description="fails in tick: the compositor contains it"),
            LayerSpec("event_witness", 10, EventWitness, topics=("screens",),
                      description="draws nothing: records what a change event does, frame by frame")]


@hookimpl
def register_routes(host: Any) -> list:
    return [
        Route("/v1/test-display/program", ProgramResource(host), {
            "PUT": Operation(AUTHENTICATED, body=Program,
                             publishes=("screens", "ticker", "overlays", "alerts"))}),
        Route("/v1/test-display/settings", SettingsResource(host), {
            "PUT": Operation(AUTHENTICATED, body=Settings, publishes=("settings",))}),
        Route("/v1/test-display/witness", WitnessResource(), {"GET": Operation(AUTHENTICATED)}),
        Route("/v1/test-display/seed", SeedResource(host),
              {"POST": Operation(AUTHENTICATED, publishes=("catalog",))}),
        Route("/v1/test-display/seed-examples", SeedResource(host, examples=True),
              {"POST": Operation(AUTHENTICATED, publishes=("catalog",))}),
    ]


plugin = __import__(__name__, fromlist=["plugin"])
