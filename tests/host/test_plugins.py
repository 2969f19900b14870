"""The plugin manager: entry points, disabling, validation that names the plugin at fault."""
import json
import logging
import subprocess
import sys

import pytest

from hookspecs import OverlayType, ScreenType, hookimpl
from svc_host.plugins import PluginError, load_plugins
from svc_host.registries import build_registries


def _screen(type_id="banner", schema=None, example=None):
    return ScreenType(type_id, "Banner", schema or {"type": "object", "properties": {"text": {"type": "string"}}},
                      example if example is not None else {"text": "hi"})


class ScreensPlugin:
    def __init__(self, *types):
        self.types = types

    @hookimpl
    def register_screen_types(self):
        return list(self.types)


def test_builtins_are_entry_points_of_the_distribution():
    plugins = load_plugins()
    info = {p.name: p for p in plugins.describe()}
    assert info["clients"].origin == "builtin"
    assert info["clients"].version
    assert "authenticate_token" in info["clients"].hooks


def test_disabled_plugins_are_not_loaded():
    plugins = load_plugins(disabled={"clients", "adoption"})
    assert "clients" not in plugins.info


def test_valid_types_are_registered():
    plugins = load_plugins(disabled={"clients", "adoption", "screens"}, extra=[("screens", ScreensPlugin(_screen()))])
    registries = build_registries(plugins)
    assert "banner" in registries.screen_types
    assert registries.screen_types.owner["banner"] == "screens"
    assert registries.screen_types.validate_config("banner", {"text": 3}) == [("/text", "3 is not of type 'string'")]


@pytest.mark.parametrize("bad, reason", [
    (_screen("Bad Id"), "must match"),
    (_screen(schema={"type": "nonsense"}), "invalid JSON Schema"),
    (_screen(example={"text": 42}), "example does not match"),
    ("not a type", "expected ScreenType"),
    (OverlayType("x", "X", {}, {}), "expected ScreenType"),
])
def test_invalid_contributions_skip_a_third_party_plugin(bad, reason, caplog):
    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("bad", ScreensPlugin(bad)),
                                                        ("good", ScreensPlugin(_screen("fine")))])
    plugins.info["bad"].origin = "third-party"
    with caplog.at_level(logging.ERROR):
        registries = build_registries(plugins)
    assert "fine" in registries.screen_types
    assert "bad" not in plugins.info
    assert any("'bad'" in r.getMessage() and reason in r.getMessage() for r in caplog.records)


def test_invalid_contribution_of_a_builtin_stops_startup():
    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("core", ScreensPlugin(_screen(example={"text": 1})))])
    plugins.info["core"].origin = "builtin"
    with pytest.raises(PluginError, match="'core'.*example does not match"):
        build_registries(plugins)


def test_duplicate_type_ids_between_builtins_name_both_plugins():
    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("one", ScreensPlugin(_screen())),
                                                        ("two", ScreensPlugin(_screen()))])
    plugins.info["one"].origin = plugins.info["two"].origin = "builtin"
    with pytest.raises(PluginError, match="'two'.*already provided by 'one'"):
        build_registries(plugins)


def test_a_third_party_duplicate_of_a_builtin_type_is_skipped(caplog):
    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("extra", ScreensPlugin(_screen())),
                                                        ("core", ScreensPlugin(_screen()))])
    plugins.info["extra"].origin = "third-party"
    plugins.info["core"].origin = "builtin"
    with caplog.at_level(logging.ERROR):
        registries = build_registries(plugins)
    assert registries.screen_types.owner["banner"] == "core"
    assert "extra" not in plugins.info
    assert any("'extra'" in r.getMessage() and "already provided by 'core'" in r.getMessage() for r in caplog.records)


def _recorder(calls, name, **marks):
    class Recorder:
        @hookimpl(**marks)
        def prepare_storage(self, settings):
            calls.append(name)
    return Recorder()


def test_lifecycle_hooks_run_in_pluggys_order_tryfirst_first_trylast_last():
    calls: list[str] = []
    mine = ("late", "plain", "early", "newer")
    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[
        ("late", _recorder(calls, "late", trylast=True)), ("plain", _recorder(calls, "plain")),
        ("early", _recorder(calls, "early", tryfirst=True)), ("newer", _recorder(calls, "newer"))])
    plugins.call_each("prepare_storage", only=mine, settings=None)
    assert calls == ["early", "newer", "plain", "late"]  # pluggy: the last registered first in a group
    assert [n for n in plugins.implementers("prepare_storage") if n in mine] == calls
    # the real builtins: every startup hook marked tryfirst runs before every unmarked one
    builtins = load_plugins()
    startup = builtins.implementers("startup")
    marks = {impl.plugin_name: impl.tryfirst for impl in builtins.pm.hook.startup.get_hookimpls()}
    marked = [name for name in startup if marks[name]]
    assert {"settings", "integrations", "curator"} <= set(marked)
    assert startup[:len(marked)] == marked, startup


def test_a_plugin_hook_that_raises_is_named():
    class Broken:
        @hookimpl
        def register_screen_types(self):
            raise KeyError("oops")

    plugins = load_plugins(disabled={"clients", "adoption"}, extra=[("broken", Broken())])
    plugins.info["broken"].origin = "builtin"
    with pytest.raises(PluginError, match="'broken'.*register_screen_types raised KeyError"):
        build_registries(plugins)


def test_host_starts_and_serves_health_with_every_builtin_disabled(start_server):
    names = [p.name for p in load_plugins().describe() if p.builtin]
    server = start_server({"SVC_DISPLAY_DISABLE_PLUGINS": ",".join(names)})
    health = server.get("/v1/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    paths = set(server.get("/v1/openapi.json").json()["paths"])
    assert paths == {"/v1/health", "/v1/openapi.json"}


def test_plugins_list_prints_name_version_origin_and_hooks():
    out = subprocess.run([sys.executable, "-m", "svc_host", "plugins", "list", "--json"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["clients"]["origin"] == "builtin" and rows["clients"]["version"]
    assert "register_commands" in rows["clients"]["hooks"]
    text = subprocess.run([sys.executable, "-m", "svc_host", "plugins", "list"], capture_output=True, text=True,
                          timeout=60).stdout
    assert "clients" in text and "builtin" in text


def test_installed_entry_points_are_read_again_when_a_distribution_is_added_or_removed(tmp_path, monkeypatch):
    """``installed_entry_points`` keeps its reading while nothing on ``sys.path`` changed, and
    sees a distribution installed into (or removed from) a folder already on it, or a new folder."""
    import shutil

    from svc_host.plugins import installed_entry_points
    from tests.distributions import write_distribution

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    first = installed_entry_points()
    assert installed_entry_points() is first  # nothing changed: the same reading
    assert "extra" not in first.names
    write_distribution(site, "extra", "")  # installed into a folder already on sys.path
    assert "extra" in installed_entry_points().names
    shutil.rmtree(site / "svc_display_extra-1.0.dist-info")
    assert "extra" not in installed_entry_points().names
    write_distribution(tmp_path / "other", "another", "")
    monkeypatch.syspath_prepend(str(tmp_path / "other"))  # a new folder on sys.path
    assert "another" in installed_entry_points().names
