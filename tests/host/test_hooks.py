"""Every hook has a documentation entry and a test of its own; each test uses a throwaway plugin."""
import asyncio
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import falcon.testing
from marshmallow import Schema, fields
from pony import orm

import hookspecs
from hookspecs import (
    AUTHENTICATED,
    CuratorPredicate,
    IntegrationType,
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
from svc_host.auth import Principal
from svc_host.server import create_websocket_app
from tests.conftest import Api, issue_key

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
    def startup(self, host):
        self.events.append("startup")
        host.services["greeting"] = "ready"

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


def test_hook_startup(make_host):
    plugin = GreetingPlugin()
    host = make_host(plugins=[("greeting", plugin)])
    assert plugin.events == ["startup"] and host.services["greeting"] == "ready"


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


def test_hook_register_overlay_types(make_host):
    host = make_host(plugins=[("o", _types_plugin("register_overlay_types",
                                                  OverlayType("sparkle", "Sparkle", SCHEMA, {})))])
    assert "sparkle" in host.registries.overlay_types


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
    out = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "cli", "--role",
                          "viewer"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["api_key"].startswith("svc_") and answer["role"] == "viewer"
    assert answer["permissions"] == ["telemetry.read"]
    bad = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "", "--role",
                          "viewer"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode != 0 and "identifier" in bad.stderr
