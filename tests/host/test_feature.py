"""A plugin's ``FEATURE`` declaration (``hookspecs.Feature``): the host implements the declared
contribution hooks for it, next to the hooks the plugin writes by hand."""
from __future__ import annotations

import types

import pytest
from pony import orm

import builtin_plugins.news
from hookspecs import Feature, Operation, Permission, Route, ScreenType, hookimpl
from hookspecs.services import ServiceKey
from svc_host.plugins import load_plugins

STARTED = ServiceKey("notes.started", bool, owner="notes", doc="set by the plugin's own startup")
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": False}


class NoteResource:
    def __init__(self, host):
        self.host = host

    def on_get(self, req, resp):
        with orm.db_session:
            resp.media = {"notes": [n.text for n in self.host.db.FeatureNote.select()],
                          "started": self.host.services.get(STARTED, False)}


def _define(db):
    class FeatureNote(db.Entity):
        _table_ = "feature_note"
        text = orm.Required(str)


def _routes(host):
    return [Route("/v1/feature-notes", NoteResource(host), {"GET": Operation("notes.read", "the notes")})]


def declared_plugin(**extra):
    """A module-like plugin: everything declared, plus a hand-written ``startup``."""
    plugin = types.ModuleType("feature_plugin")
    plugin.FEATURE = Feature(permissions=[Permission("notes.read", "read notes", ("viewer",))],
                             entities=_define, routes=_routes,
                             screen_types=[ScreenType("feature_note", "Note", SCHEMA, {"text": "hi"})],
                             service_keys=[STARTED], **extra)

    @hookimpl(tryfirst=True)
    def startup(host):
        host.services[STARTED] = True
        with orm.db_session:
            host.db.FeatureNote(text="written at startup")

    plugin.startup = startup
    return plugin


def test_a_declared_feature_contributes_like_hand_written_hooks(make_host, svc_display_api):
    host = make_host(plugins=[("notes", declared_plugin())])
    assert host.registries.screen_types.owner["feature_note"] == "notes"
    assert host.registries.permission_owners["notes.read"] == "notes"
    body = svc_display_api(host, role="viewer").get("/v1/feature-notes").json
    assert body == {"notes": ["written at startup"], "started": True}
    info = {p.name: p for p in host.plugins.describe()}["notes"]
    assert info.hooks == ["register_entities", "register_permissions", "register_routes",
                          "register_screen_types", "register_service_keys", "startup"]
    assert info.module == "feature_plugin"


def test_references_are_imported_only_when_the_hook_runs():
    feature = Feature(samples="builtin_plugins.news.samples:write", routes="no_such_module_anywhere:routes")
    impls = feature.hookimpls()
    assert sorted(impls) == ["display_samples", "register_routes"] == sorted(feature.hooks())
    with pytest.raises(ModuleNotFoundError):
        impls["register_routes"](host=None)


def test_a_hook_both_declared_and_written_is_refused_naming_it(make_host, caplog):
    plugin = declared_plugin()

    @hookimpl
    def register_screen_types():
        return []

    plugin.register_screen_types = register_screen_types
    with pytest.raises(TypeError, match="register_screen_types both declared in FEATURE and implemented"):
        make_host(plugins=[("notes", plugin)])


def test_a_plugin_whose_declaration_is_bad_is_skipped_with_the_reason(make_host):
    bad = types.ModuleType("bad_feature")
    bad.FEATURE = Feature(screen_types=["not a type"])
    host = make_host(plugins=[("bad_feature", bad)])
    assert "bad_feature" not in host.plugins.info
    assert "register_screen_types returned str, expected ScreenType" in host.plugins.failed["bad_feature"][1]


def test_the_builtins_declare_their_contributions():
    """The feature folders forward nothing by hand: a module that declares a contribution hook
    in FEATURE does not also define it (the host would refuse it), and the news feature's
    declaration stands for its former hooks."""
    assert builtin_plugins.news.FEATURE.hooks() == [
        "register_permissions", "register_entities", "register_migrations", "register_routes",
        "register_screen_types", "register_ticker_types", "register_integration_types",
        "register_content_lists", "display_samples"]
    plugins = load_plugins()
    declared = [name for name in plugins.info if hasattr(plugins.pm.get_plugin(name), "FEATURE")]
    assert len(declared) >= 25


def test_a_catalog_declares_types_beside_those_written_in_python(make_host):
    """``Feature(types=load_types(...))``: the catalog's types join the fields of the same kind
    (here a run-time type written in Python and the catalog's weather types)."""
    from hookspecs.catalog import load_types

    catalog = load_types("builtin_plugins.weather")
    own = ScreenType("feature_note", "Note", SCHEMA, {"text": "hi"})
    feature = Feature(screen_types=[own], types=catalog)
    assert feature.items("screen_types") == (own, *catalog.screen_types)
    assert feature.items("ticker_types") == tuple(catalog.ticker_types) and feature.items("overlay_types") == ()
    assert feature.hooks() == ["register_screen_types", "register_ticker_types", "register_integration_types"]
    plugin = types.ModuleType("catalog_plugin")
    plugin.FEATURE = Feature(screen_types=[own])
    host = make_host(plugins=[("notes", plugin)])
    assert host.registries.screen_types.owner["feature_note"] == "notes"
    assert host.registries.screen_types.owner["weather_current"] == "weather"  # the builtin's catalog


def test_stops_stops_the_services_a_plugin_started_at_shutdown(make_host):
    """``Feature(stops=[KEY])``: at shutdown the host calls ``stop()`` on each one published, and
    passes over one that was never published (a disabled part, a start that failed)."""
    class Worker:
        stopped = 0

        def stop(self):
            Worker.stopped += 1

    running = ServiceKey("notes.worker", Worker, owner="notes", doc="a worker")
    never = ServiceKey("notes.never", Worker, owner="notes", doc="never started")
    plugin = types.ModuleType("stopping_plugin")
    plugin.FEATURE = Feature(stops=[running, never], service_keys=[running, never])

    @hookimpl
    def startup(host):
        host.services[running] = Worker()

    plugin.startup = startup
    host = make_host(plugins=[("notes", plugin)])
    assert "shutdown" in {p.name: p for p in host.plugins.describe()}["notes"].hooks
    host.close()  # runs the shutdown hooks
    assert Worker.stopped == 1
