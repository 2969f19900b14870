"""Safe plugin loading: a third-party plugin that is misspelled, raises or mismatches its table is
skipped whole with one log line naming it; a builtin doing the same stops startup with its name.

Throwaway plugins are small classes handed to the host in a fixture (datasette's style);
the entry-point cases install a real distribution folder on PYTHONPATH.
"""
import logging
from pathlib import Path

import pytest
from pony import orm

from hookspecs import AUTHENTICATED, Migration, Operation, Permission, Route, ScreenType, hookimpl
from hookspecs.services import ServiceKey
from svc_display.testing.clients import ApiClient
from svc_host.config import load_settings
from svc_host.plugins import PluginError, PluginHost, load_plugins
from svc_host.schema import add_column, column_exists
from tests.distributions import run_cli, write_distribution

pytestmark = pytest.mark.svc_display_storage

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


MISSPELLED = """
from hookspecs import hookimpl

@hookimpl
def register_screen_typez():
    return []
"""


def test_a_misspelled_hook_skips_the_third_party_plugin_with_one_line(tmp_path, env):
    path = write_distribution(tmp_path / "site", "typo", MISSPELLED)
    out = run_cli(env, path, "--help")
    assert out.returncode == 0, out.stderr
    assert "serve" in out.stdout
    lines = [line for line in out.stderr.splitlines() if "'typo'" in line]
    assert len(lines) == 1 and "register_screen_typez" in lines[0], out.stderr
    listing = run_cli(env, path, "plugins", "list")
    assert listing.returncode == 0, listing.stderr
    assert "clients" in listing.stdout
    typo = [line for line in listing.stdout.splitlines() if line.startswith("typo ")]
    assert len(typo) == 1 and " failed " in typo[0] and "register_screen_typez" in typo[0]  # listed, with why


def test_a_misspelled_hook_in_a_builtin_stops_startup():
    class Typo:
        @hookimpl
        def register_routez(self, host):
            return []

    with pytest.raises(PluginError, match="'core'.*unknown hooks.*register_routez"):
        load_plugins(disabled={"clients", "adoption"}, extra=[("core", Typo(), "builtin")])


def test_a_misspelled_hook_in_a_throwaway_plugin_is_skipped(caplog):
    class Typo:
        @hookimpl
        def startupp(self, host):
            pass

    with caplog.at_level(logging.ERROR):
        plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("typo", Typo())])
    assert "typo" not in plugins.info
    assert [r.getMessage() for r in caplog.records if "'typo'" in r.getMessage()] == [
        "skipping plugin 'typo': implements unknown hooks ['startupp'] (misspelled? see docs/hooks.md)"]


class Everything:
    """Contributes one of each thing, then raises in the hook named ``raises_in``."""

    def __init__(self, raises_in: str | None = None):
        self.raises_in = raises_in
        self.started = self.stopped = 0

    def _maybe_raise(self, hook):
        if hook == self.raises_in:
            raise RuntimeError(f"boom in {hook}")

    @hookimpl
    def register_service_keys(self):
        return [EVERYTHING]

    @hookimpl
    def register_permissions(self):
        self._maybe_raise("register_permissions")
        return [Permission("everything.read", "read", roles=("viewer",))]

    @hookimpl
    def register_screen_types(self):
        self._maybe_raise("register_screen_types")
        return [ScreenType("everything_slide", "Everything", SCHEMA, {"text": "x"})]

    @hookimpl
    def register_entities(self, db):
        class EverythingRow(db.Entity):
            _table_ = "everything_row"
            text = orm.Required(str)
        self._maybe_raise("register_entities")

    @hookimpl
    def register_migrations(self):
        def seed(db):
            db.EverythingRow(text="seed")
            self._maybe_raise("migration")
        return [Migration("0001_seed", seed)]

    @hookimpl
    def register_routes(self, host):
        self._maybe_raise("register_routes")

        class Resource:
            def on_get(self, req, resp):
                resp.media = {}

        return [Route("/v1/everything", Resource(), {"GET": Operation(AUTHENTICATED, "everything")})]

    @hookimpl
    def startup(self, host):
        self.started += 1
        host.services[EVERYTHING] = self
        self._maybe_raise("startup")

    @hookimpl
    def shutdown(self, host):
        self.stopped += 1


EVERYTHING = ServiceKey("everything", Everything, owner="everything", doc="the plugin itself")


def assert_nothing_of_everything(host):
    assert "everything_slide" not in host.registries.screen_types
    assert "everything.read" not in host.registries.permissions.permissions
    assert "EverythingRow" not in host.db.entities
    assert all(route.path != "/v1/everything" for _, route in host.routes)
    assert EVERYTHING not in host.registries.service_keys
    assert all(key.owner != "everything" for key in host.services.declared())
    assert "everything" not in host.plugins.info


@pytest.mark.parametrize("hook", ["register_screen_types", "register_entities", "migration",
                                  "register_routes", "startup"])
def test_registration_is_all_or_nothing_for_a_third_party_plugin(make_host, hook, caplog):
    plugin = Everything(raises_in=hook)
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("everything", plugin)])
    assert_nothing_of_everything(host)
    assert "clients" in host.plugins.info  # the others are all there
    assert any("'everything'" in r.getMessage() and "boom in" in r.getMessage() for r in caplog.records)
    if hook == "startup":
        assert plugin.started == 1 and plugin.stopped == 0  # never started again, never half-live


def test_a_healthy_throwaway_plugin_contributes_everything(make_host):
    host = make_host(plugins=[("everything", Everything())])
    assert "everything_slide" in host.registries.screen_types
    assert "everything.read" in host.registries.permissions.permissions
    assert any(route.path == "/v1/everything" for _, route in host.routes)
    assert isinstance(host.services[EVERYTHING], Everything)
    with orm.db_session:
        assert [row.text for row in host.db.EverythingRow.select()] == ["seed"]


@pytest.mark.parametrize("hook", ["register_screen_types", "register_entities", "migration", "register_routes",
                                  "startup"])
def test_a_builtin_that_raises_stops_startup_with_its_name(make_host, hook):
    with pytest.raises(PluginError, match=f"'everything'.*boom in {hook}"):
        make_host(plugins=[("everything", Everything(raises_in=hook), "builtin")])


def routes_plugin(*paths: str):
    """A plugin serving ``GET`` on each of ``paths`` (in order, repeats included)."""

    class Routes:
        @hookimpl
        def register_routes(self, host):
            class Resource:
                def on_get(self, req, resp):
                    resp.media = {}

            return [Route(path, Resource(), {"GET": Operation(AUTHENTICATED, "mine")}) for path in paths]

    return Routes()


def route_owners(host) -> dict[str, list[str]]:
    owners: dict[str, list[str]] = {}
    for plugin, route in host.routes:
        owners.setdefault(route.path, []).append(plugin)
    return owners


@pytest.mark.parametrize("paths, reason", [
    (("/v1/thief/own", "/v1/config/key-values"), "route '/v1/config/key-values' is already served by 'settings'"),
    (("/v1/thief/own", "/v1/health"), "route '/v1/health' is already served by 'host'"),
    (("/v1/thief/own", "/v1/thief/own"), "registers route '/v1/thief/own' twice"),
])
def test_a_third_party_route_clash_skips_that_plugin_with_one_line(make_host, paths, reason, caplog):
    with caplog.at_level(logging.DEBUG, logger="svc_host"):
        host = make_host(plugins=[("thief", routes_plugin(*paths))])
    assert [r.getMessage() for r in caplog.records
            if "'thief'" in r.getMessage() and r.levelno >= logging.INFO] == [f"skipping plugin 'thief': {reason}"]
    assert "thief" not in host.plugins.info and "settings" in host.plugins.info
    owners = route_owners(host)
    assert "/v1/thief/own" not in owners and owners["/v1/config/key-values"] == ["settings"]
    assert all(len(plugins) == 1 for plugins in owners.values())
    assert ApiClient(host).get("/v1/health").status_code == 200  # the app builds


def test_of_two_third_party_plugins_on_one_path_the_later_is_skipped(make_host, caplog):
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("first", routes_plugin("/v1/shared")), ("second", routes_plugin("/v1/shared"))])
    assert route_owners(host)["/v1/shared"] == ["first"]
    assert "second" not in host.plugins.info
    assert [r.getMessage() for r in caplog.records] == [
        "skipping plugin 'second': route '/v1/shared' is already served by 'first'"]


@pytest.mark.parametrize("paths", [("/v1/config/key-values",), ("/v1/mine", "/v1/mine")])
def test_a_builtin_route_clash_stops_startup_naming_it(make_host, paths):
    with pytest.raises(PluginError, match="plugin 'clasher': (route|registers route)"):
        make_host(plugins=[("clasher", routes_plugin(*paths), "builtin")])


def notes_plugin(version: int, with_migration: bool = True):
    """A plugin whose table gains a ``color`` column in version 2, with the migration adding it."""

    class Notes:
        @hookimpl
        def register_entities(self, db):
            attrs = {"_table_": "notes_note", "text": orm.Required(str)}
            if version >= 2:
                attrs["color"] = orm.Required(str, default="black")
            type("Note", (db.Entity,), attrs)

        @hookimpl
        def register_migrations(self):
            migrations = [Migration("0001_first", lambda db: db.Note(text="first"))]
            if version >= 2 and with_migration:
                migrations.append(Migration("0002_color", lambda db: add_column(db, "notes_note", "color", "TEXT",
                                                                                default="black")))
            return migrations

    return Notes()


def test_a_plugin_migration_adds_a_column_to_its_own_table(make_host):
    first = make_host(plugins=[("notes", notes_plugin(1))])
    first.close()
    second = make_host(plugins=[("notes", notes_plugin(2))])
    with orm.db_session:
        assert [(n.text, n.color) for n in second.db.Note.select()] == [("first", "black")]
        second.db.Note(text="second", color="red")
        assert column_exists(second.db, "notes_note", "color")
    second.close()
    # A fresh database gets the column from the mapping; the migration then has nothing to add.
    fresh = make_host({"SVC_DISPLAY_DATA_DIR": str(Path(first.settings.data_dir).parent / "fresh")},
                      plugins=[("notes", notes_plugin(2))]) if first.settings.database_url is None else None
    if fresh is not None:
        with orm.db_session:
            assert column_exists(fresh.db, "notes_note", "color")


def test_a_table_without_its_migration_names_the_plugin(make_host, caplog):
    make_host(plugins=[("notes", notes_plugin(1))]).close()
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("notes", notes_plugin(2, with_migration=False))])
    assert "notes" not in host.plugins.info and "Note" not in host.db.entities
    assert any(r.getMessage().startswith("skipping plugin 'notes': table 'notes_note' does not match")
               for r in caplog.records)
    with pytest.raises(PluginError, match="plugin 'notes': table 'notes_note' does not match"):
        make_host(plugins=[("notes", notes_plugin(2, with_migration=False), "builtin")])


def test_check_hooks_is_per_plugin():
    plugins = PluginHost()

    class Fine:
        @hookimpl
        def startup(self, host):
            pass

    class Typo:
        @hookimpl
        def start_up(self, host):
            pass

    plugins.register(Fine(), "fine", "third-party")
    plugins.register(Typo(), "typo", "third-party")
    plugins.check_hooks()
    assert set(plugins.info) == {"fine"}


def test_build_host_with_an_entry_point_plugin_that_raises(tmp_path, env):
    path = write_distribution(tmp_path / "site", "raiser", """
        from hookspecs import ScreenType, hookimpl

        @hookimpl
        def register_screen_types():
            return [ScreenType("raiser_slide", "R", {"type": "object"}, {})]

        @hookimpl
        def register_overlay_types():
            raise ValueError("no overlays today")
    """)
    out = run_cli(env, path, "migrate")
    assert out.returncode == 0, out.stderr
    assert "skipping plugin 'raiser': register_overlay_types raised ValueError: no overlays today" in out.stderr
    assert load_settings(env)  # the environment itself is valid
