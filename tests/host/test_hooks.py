"""Every hook has a documentation entry and a test of its own; each test uses a throwaway plugin."""
import asyncio
import inspect
import json
import logging
import re
import subprocess
import sys
from pathlib import Path

import falcon.testing
import pytest
from marshmallow import Schema, fields
from pony import orm

import hookspecs
from hookspecs import (
    CLOCK_HEADER,
    ContentList,
    CuratorPredicate,
    FeedKind,
    IntegrationType,
    LayerSpec,
    Migration,
    Operation,
    OverlayType,
    Permission,
    Route,
    ScreenType,
    TickerType,
    WebSocketRoute,
    hookimpl,
)
from hookspecs.services import ServiceKey
from hookspecs.permissions import Principal
from svc_host.plugins import PluginError
from svc_host.server import create_websocket_app
from svc_display.testing import FixedClock, issue_key
from svc_display.testing.clients import ApiClient as Api

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": False}


def hook_names():
    return sorted(name for name, value in inspect.getmembers(hookspecs)
                  if callable(value) and hasattr(value, "svc_display_spec"))


def test_every_hook_is_documented_and_tested():
    docs = (REPO / "docs" / "hooks.md").read_text()
    tests = "\n".join(p.read_text() for p in (REPO / "tests").rglob("test_*.py"))
    names = hook_names()
    assert len(names) >= 15
    for name in names:
        assert re.search(rf"^## {name}$", docs, re.M), f"docs/hooks.md has no entry for {name}"
        assert re.search(rf"def test_hook_{name}\b", tests), f"no test_hook_{name} test"
        assert getattr(hookspecs, name).__doc__, f"{name} has no docstring"


GREETING = ServiceKey("greeting", str, owner="greeting", doc="the greeting plugin's word")
"""A third-party plugin's own service key, declared in its own module."""


class GreetingPlugin:
    def __init__(self):
        self.events = []

    @hookimpl
    def register_permissions(self):
        return [Permission("greeting.read", "read greetings", roles=("viewer",))]

    @hookimpl
    def register_entities(self, db):
        class Greeting(db.Entity):
            _table_ = "test_greeting"
            text = orm.Required(str)

    @hookimpl
    def register_migrations(self):
        return [Migration("0001_seed", lambda db: db.Greeting(text="hello"))]

    @hookimpl
    def register_routes(self, host):
        class Greetings:
            def on_get(self, req, resp):
                resp.media = {"items": [g.text for g in host.db.Greeting.select()]}

        class GreetingsQuery(Schema):
            loud = fields.Boolean(load_default=False)

        return [Route("/v1/greetings", Greetings(), {
            "GET": Operation("greeting.read", "list greetings", query=GreetingsQuery),
        })]

    @hookimpl
    def register_service_keys(self):
        return [GREETING]

    @hookimpl
    def startup(self, host):
        self.events.append("startup")
        host.services[GREETING] = "ready"

    @hookimpl
    def shutdown(self, host):
        self.events.append("shutdown")


def test_hook_register_permissions(make_host):
    host = make_host(plugins=[("greeting", GreetingPlugin())])
    table = host.registries.permissions
    assert table.role_has("viewer", "greeting.read") and table.role_has("admin", "greeting.read")
    assert not table.role_has("operator", "greeting.read")


def test_hook_register_entities(make_host):
    host = make_host(plugins=[("greeting", GreetingPlugin())])
    with orm.db_session:
        host.db.Greeting(text="second")
    with orm.db_session:
        assert orm.count(g for g in host.db.Greeting) == 2


def test_hook_register_migrations(make_host, backend):
    host = make_host(plugins=[("greeting", GreetingPlugin())])
    with orm.db_session:
        assert [g.text for g in host.db.Greeting.select()] == ["hello"]
        assert host.db.AppliedMigration.get(plugin="greeting", migration_id="0001_seed")
    expected = 1 if backend == "postgres" else len(host.registries.migrations)
    assert host.schema_version() == expected


def test_hook_register_routes(make_host):
    host = make_host(plugins=[("greeting", GreetingPlugin())])
    api = Api(host)
    viewer = issue_key(host, "viewer")
    operator = issue_key(host, "operator")
    assert api.get("/v1/greetings", key=viewer).json == {"items": ["hello"]}
    assert api.get("/v1/greetings", key=operator).status_code == 403
    assert api.get("/v1/greetings", key=viewer, params={"loud": "maybe"}).json["code"] == "validation_failed"
    operation = host.openapi["paths"]["/v1/greetings"]["get"]
    assert operation["x-permission"] == "greeting.read"
    assert any(p["name"] == "loud" and p["in"] == "query" for p in operation["parameters"])


def test_hook_prepare_storage(make_host, tmp_path):
    seen = []

    class Preparer:
        @hookimpl
        def prepare_storage(self, settings):
            # runs before the database exists: the SQLite file is not there yet on a fresh data dir
            seen.append((settings.data_dir, settings.sqlite_path.exists()))

    host = make_host(plugins=[("preparer", Preparer())])
    assert seen == [(host.settings.data_dir, False)]


def test_hook_register_service_keys(make_host):
    host = make_host(plugins=[("greeting", GreetingPlugin())])
    assert GREETING in host.registries.service_keys and GREETING in host.services.declared()
    assert host.services[GREETING] == "ready"


def test_hook_health_fields(make_host, caplog):
    """A plugin's fields join GET /v1/health; a field the host answers is not replaced; a plugin
    that raises is logged by name and left out, and health still answers."""
    class Fields:
        @hookimpl
        def health_fields(self, host):
            return {"greeting_ready": host.services.get(GREETING) == "ready", "status": "broken"}

    class Broken:
        @hookimpl
        def health_fields(self, host):
            raise RuntimeError("no health today")

    host = make_host(plugins=[("greeting", GreetingPlugin()), ("fields", Fields()), ("broken", Broken())])
    answer = Api(host).get("/v1/health")
    assert answer.status_code == 200
    assert answer.json["greeting_ready"] is True and answer.json["status"] == "ok"
    assert answer.json["upgrade_capable"] is False  # the maintenance plugin's, no upgrade script here
    assert any("'broken'" in r.getMessage() and "health_fields" in r.getMessage() for r in caplog.records)


def test_hook_startup(make_host):
    plugin = GreetingPlugin()
    host = make_host(plugins=[("greeting", plugin)])
    assert plugin.events == ["startup"] and host.services[GREETING] == "ready"


def test_hook_display_samples(tmp_path):
    """The gallery's host asks every plugin for samples; with the builtins' samples every builtin
    screen and overlay type finds content for its example config (no Kivy needed)."""
    from pony import orm

    from hookspecs.render import Preferences
    from svc_host.display.gallery import SKIPPED, build_sample_host

    class Sampler:
        @hookimpl
        def display_samples(self, host):
            host.blobs.put("sampler/one.png", b"not really a picture", "image/png")

    host = build_sample_host(tmp_path / "data", extra_plugins=(("sampler", Sampler()),))
    try:
        assert host.blobs.get("sampler/one.png") is not None
        checked = 0
        for kind, registry in (("screen", host.registries.screen_types), ("overlay", host.registries.overlay_types)):
            for type_def in registry:
                prepare = getattr(registry.renderer(type_def.id), "prepare", None)
                if (kind, type_def.id) in SKIPPED or prepare is None:
                    continue
                row = {"id": "x", f"{kind}_type": type_def.id, "config_json": dict(type_def.example_config)}
                with orm.db_session:
                    data = prepare(Preferences().context(host, kind, type_def.id, row))
                assert data is not None, f"{kind} {type_def.id} finds no sample content"
                checked += 1
        assert checked >= 15
    finally:
        host.close()


def test_hook_shutdown(make_host):
    plugin = GreetingPlugin()
    host = make_host(plugins=[("greeting", plugin)])
    host.close()
    assert plugin.events == ["startup", "shutdown"]


class EchoSocket:
    async def on_websocket(self, req, ws):
        await ws.accept()
        message = await ws.receive_text()
        await ws.send_text(message.upper())
        await ws.close()


def test_hook_register_websocket_routes(make_host):
    class Plugin:
        @hookimpl
        def register_websocket_routes(self, host):
            return [WebSocketRoute("/v1/echo/ws", EchoSocket())]

    host = make_host(plugins=[("echo", Plugin())])
    app = create_websocket_app(host)

    async def talk():
        async with falcon.testing.ASGIConductor(app) as conductor:
            async with conductor.simulate_ws("/v1/echo/ws") as ws:
                await ws.send_text("hi")
                return await ws.receive_text()

    assert asyncio.run(talk()) == "HI"


def test_hook_register_middleware(make_host):
    class Stamp:
        def process_response(self, req, resp, resource, req_succeeded):
            resp.set_header("X-Stamp", "yes")

    class Plugin:
        @hookimpl
        def register_middleware(self, host):
            return [Stamp()]

    api = Api(make_host(plugins=[("stamp", Plugin())]))
    assert api.get("/v1/health").headers["x-stamp"] == "yes"
    assert api.get("/v1/missing").headers["x-stamp"] == "yes"


def _types_plugin(hook, obj):
    class Plugin:
        pass

    def impl(self):
        return [obj]

    impl.__name__ = hook
    setattr(Plugin, hook, hookimpl(impl))
    return Plugin()


def test_hook_register_screen_types(make_host):
    host = make_host(plugins=[("s", _types_plugin("register_screen_types",
                                                  ScreenType("banner", "Banner", SCHEMA, {"text": "x"})))])
    assert host.registries.screen_types.get("banner").label == "Banner"


def test_hook_register_ticker_types(make_host):
    item = TickerType("shout", "Shout", SCHEMA, {"text": "x"}, build_items=lambda host, tape, now: ["X"])
    host = make_host(plugins=[("t", _types_plugin("register_ticker_types", item))])
    assert host.registries.ticker_types.get("shout").build_items(host, None, 0) == ["X"]


@pytest.mark.parametrize("given, reason", [
    ({}, "ticker type 'mute' needs build_items(host, tape, now_ms)"),
    ({"build_items": lambda host, tape, now: [], "refresh_seconds": 0},
     "ticker type 'mute': refresh_seconds must be a positive number or None"),
    ({"build_items": lambda host, tape, now: [], "refresh_seconds": "1"},
     "ticker type 'mute': refresh_seconds must be a positive number or None"),
])
def test_a_ticker_type_is_made_with_build_items_and_a_positive_refresh(make_host, caplog, given, reason):
    item = TickerType("mute", "Mute", SCHEMA, {"text": "x"}, **given)
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("t", _types_plugin("register_ticker_types", item))])
    assert "mute" not in host.registries.ticker_types and "t" not in host.plugins.info
    assert f"skipping plugin 't': {reason}" in caplog.text


def test_hook_register_overlay_types(make_host):
    host = make_host(plugins=[("o", _types_plugin("register_overlay_types",
                                                  OverlayType("sparkle", "Sparkle", SCHEMA, {})))])
    assert "sparkle" in host.registries.overlay_types


class CornerLayer:
    """A throwaway layer: it loads the theme it would draw with and the area it is given."""

    def __init__(self, stage):
        self.stage = stage

    def load(self):
        return {"theme": self.stage.preferences.theme_id, "area": self.stage.area}

    def apply(self, state, restyle):
        self.applied = state


def test_hook_register_display_layers(make_host, caplog):
    from svc_host.display.compositor import Compositor
    from svc_host.registries import resolve_layers

    spec = LayerSpec("corner", 250, CornerLayer, topics=("settings",))
    host = make_host(plugins=[("layered", _types_plugin("register_display_layers", spec))])
    ids = [layer.id for _plugin, layer in host.registries.display_layers]
    assert ids.index("overlays") < ids.index("corner") < ids.index("alerts")  # bottom to top by z
    compositor = Compositor(host)  # no window needed to make the layers and load them
    compositor.create_layers()
    _prefs, results = compositor.load(["corner"])
    assert [(entry.spec.id, state["theme"], error) for entry, state, error in results] == \
        [("corner", "navy_coral", None)]
    assert results[0][1]["area"] == compositor.layout.content  # a content layer draws in the content area

    # a reference whose module exists passes startup; when a canvas starts it must resolve
    late = LayerSpec("late", 1, f"{__name__}:no_such_layer")
    host = make_host(plugins=[("late_plugin", _types_plugin("register_display_layers", late))])
    assert "late" in [layer.id for _plugin, layer in host.registries.display_layers]
    assert "late" not in [spec.id for _plugin, spec, _factory in resolve_layers(host)]
    assert any("'late_plugin'" in r.getMessage() and "no_such_layer" in r.getMessage()
               for r in caplog.records)

    for bad, reason in ((LayerSpec("slides", 1, CornerLayer), "already provided by 'screens'"),
                        (LayerSpec("sky", 1, CornerLayer, area="sky"), "area 'sky'"),
                        (LayerSpec("gone", 1, "no_such_module_xyz:Layer"), "does not exist"),
                        (LayerSpec("Bad Id", 1, CornerLayer), "must match")):
        caplog.clear()
        host = make_host(plugins=[("bad", _types_plugin("register_display_layers", bad))])
        assert "bad" not in host.plugins.info and "bad" not in [p for p, _s in host.registries.display_layers]
        assert any("'bad'" in r.getMessage() and reason in r.getMessage() for r in caplog.records), reason


def test_hook_register_integration_types(make_host, caplog):
    good = IntegrationType("news_example", "Example news", SCHEMA, {}, family="news", secret_fields=("api_key",))
    host = make_host(plugins=[("i", _types_plugin("register_integration_types", good))])
    assert host.registries.integration_types.get("news_example").secret_fields == ("api_key",)

    bad = IntegrationType("example", "No family", SCHEMA, {}, family="news")
    host = make_host(plugins=[("bad", _types_plugin("register_integration_types", bad))])
    assert "example" not in host.registries.integration_types
    assert any("<family>_<provider>" in r.getMessage() for r in caplog.records)


def test_hook_register_curator_predicates(make_host):
    predicate = CuratorPredicate("always", "Always", "always true", evaluate=lambda state, params: True)
    host = make_host(plugins=[("c", _types_plugin("register_curator_predicates", predicate))])
    assert host.registries.curator_predicates["always"].evaluate({}, {}) is True


def test_hook_authenticate_token(make_host):
    class Plugin:
        @hookimpl
        def authenticate_token(self, host, token):
            return Principal("kiosk", "power_viewer") if token == "kiosk-token" else None

    host = make_host(plugins=[("tokens", Plugin())])
    principal = host.authenticate("kiosk-token")
    assert principal.identifier == "kiosk" and principal.has("navigation.control")
    assert not principal.has("screens.write")
    assert host.authenticate("other") is None


def test_hook_register_commands(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_DISPLAY_HEADLESS": "1"}
    migrated = subprocess.run([sys.executable, "-m", "svc_host", "migrate"], capture_output=True, text=True, env=env,
                              timeout=60)  # keys are issued into an existing store only
    assert migrated.returncode == 0, migrated.stderr
    out = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "cli", "--role",
                          "viewer"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["api_key"].startswith("svc_") and answer["role"] == "viewer"
    assert answer["permissions"] == ["telemetry.read"]
    bad = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "", "--role",
                          "viewer"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode != 0 and "identifier" in bad.stderr


class FactsPlugin:
    """A third-party feature with its own table, offered as a content list to every domain."""

    def __init__(self, entity="Fact"):
        self.entity = entity

    @hookimpl
    def register_entities(self, db):
        class Fact(db.Entity):
            _table_ = "test_fact"
            id = orm.PrimaryKey(str, 200)
            text = orm.Required(str, 500)
            category_id = orm.Required(str, 64)
            blob_key = orm.Optional(str, 512, nullable=True)
            suppressed = orm.Required(bool, default=False)
            integration_type = orm.Required(str, 100, default="manual_entry")

    @hookimpl
    def register_content_lists(self):
        fact_json = lambda row: {"id": row.id, "text": row.text, "category_id": row.category_id}  # noqa: E731
        feed = FeedKind("fact", lambda item, now: {"text": item.text("text", 500, required=True),
                                                   "category_id": "general"})
        return [ContentList("facts", self.entity, fact_json, label="facts", filters={"text": "text"},
                            suppressible=True, blob_attribute="blob_key", media=fact_json,
                            category_guard="category_in_use", feed=feed)]


def test_hook_register_content_lists(make_host, caplog):
    from builtin_plugins.cloud_feed.store import FeedStore

    host = make_host(plugins=[("facts", FactsPlugin())])
    admin, operator = Api(host, issue_key(host, "admin")), Api(host, issue_key(host, "operator"))
    host.blobs.put("facts/one.png", b"png", "image/png")
    with orm.db_session:
        host.db.Fact(id="f1", text="Octopuses have three hearts", category_id="garden",
                     blob_key="facts/one.png")
        host.db.Fact(id="f2", text="Honey never spoils", category_id="general")
    assert admin.post("/v1/curator/categories", json={"id": "garden", "label": "Garden"}).status_code == 201

    # the catalog lists it, with its filters
    found = operator.get("/v1/catalog/facts", params={"text": "HEARTS"}).json["items"]
    assert [i["id"] for i in found] == ["f1"]
    # moderation suppresses it (hidden from non-moderators, media answers 404) and deletes it with its blob
    suppressed = admin.patch("/v1/content/facts/f1", json={"suppressed": True}).json
    assert suppressed == {"id": "f1", "suppressed": True}
    assert operator.get("/v1/catalog/facts").json["total"] == 1
    assert admin.get("/v1/catalog/facts").json["total"] == 2
    assert operator.get("/v1/media/facts/f1").status_code == 404
    assert operator.get("/v1/media/facts/f2").json["text"] == "Honey never spoils"
    # a category its rows use cannot be deleted
    answer = admin.delete("/v1/curator/categories/garden")
    assert (answer.status_code, answer.json["code"]) == (409, "category_in_use")
    assert admin.delete("/v1/content/facts/f1").status_code == 204
    assert host.blobs.get("facts/one.png") is None
    assert admin.delete("/v1/curator/categories/garden").status_code == 204
    # the cloud feed writes items of its feed kind into the table
    FeedStore(host).apply("upsert", {"kind": "fact", "id": 7, "text": "Bananas are berries"}, "e1")
    found = operator.get("/v1/catalog/facts", params={"text": "berries"}).json["items"]
    assert [i["text"] for i in found] == ["Bananas are berries"]

    # a list naming a table its plugin does not declare is refused, naming the plugin
    host = make_host(plugins=[("sneaky", FactsPlugin(entity="Joke"))])
    assert "facts" not in host.registries.content_lists and "sneaky" not in host.plugins.info
    assert any("'sneaky'" in r.getMessage() and "entity 'Joke'" in r.getMessage() for r in caplog.records)


class Ordered:
    """A plugin that records its startup and shutdown in a shared list."""

    def __init__(self, name, log, **marks):
        self.name, self.log = name, log
        startup = hookimpl(**marks)(lambda host: log.append(("startup", name)))
        self.startup = startup

    @hookimpl
    def shutdown(self, host):
        self.log.append(("shutdown", self.name))


def test_shutdown_runs_in_the_reverse_of_the_start_order(make_host):
    """The plugin that started last stops first: one that started after another may use what that
    one published until it stops. Registered in the other order, so pluggy's own order for
    ``shutdown`` (the last registered first, no marks) would stop ``first`` first."""
    log: list = []
    host = make_host(plugins=[("last", Ordered("last", log, trylast=True)), ("middle", Ordered("middle", log)),
                              ("first", Ordered("first", log, tryfirst=True))])
    started = [name for step, name in log if step == "startup"]
    assert started == ["first", "middle", "last"]
    host.close()
    assert [name for step, name in log if step == "shutdown"] == ["last", "middle", "first"]


class Wrapping:
    @hookimpl(wrapper=True)
    def startup(self, host):
        yield


class OldStyleWrapping:
    @hookimpl(hookwrapper=True)
    def shutdown(self, host):
        yield


@pytest.mark.parametrize("plugin, hook", [(Wrapping(), "startup"), (OldStyleWrapping(), "shutdown")])
def test_a_wrapper_implementation_is_refused_at_load_naming_the_plugin(make_host, caplog, plugin, hook):
    """A wrapper's body would never run (each implementation is called on its own): a third-party
    plugin with one is skipped with a log line naming it and the hook; a builtin stops startup."""
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("wrapping", plugin)])
    try:
        assert "wrapping" not in host.plugins.info
        assert any(r.getMessage().startswith("skipping plugin 'wrapping': implements ['%s'] as a wrapper" % hook)
                   for r in caplog.records), [r.getMessage() for r in caplog.records]
    finally:
        host.close()
    with pytest.raises(PluginError, match=r"plugin 'wrapping': implements \['%s'\] as a wrapper" % hook):
        make_host(plugins=[("wrapping", plugin, "builtin")])


def test_health_sends_the_displays_clock_in_milliseconds(host):
    """A controller reads the display's clock offset from X-Svc-Clock-Ms to the millisecond (the
    Date header has whole seconds): the header is the host's clock as the answer is made."""
    host.clock = FixedClock(1_796_558_400_123)
    answer = Api(host).get("/v1/health")
    assert answer.status_code == 200 and answer.headers[CLOCK_HEADER] == "1796558400123"
