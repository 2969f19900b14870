"""``host.services`` takes declared :class:`ServiceKey` objects only, and only a key's owner publishes.

Issue 25 item 4: a string key is refused, an undeclared key is refused, a publish by another
plugin than the key's owner is refused (naming that plugin), every declared key carries a real
type (never ``Any``), a third-party plugin can declare its own keys, and the host satisfies the
:class:`hookspecs.host.Host` Protocol plugins type against.
"""
import ast
import importlib
import logging
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import hookspecs.host
from hookspecs import hookimpl, services
from hookspecs.services import SERVICE_KEYS, SETTINGS, ServiceKey, ServiceRegistry
from svc_host.plugins import PluginError
from svc_host.service_registry import ServiceKeyError, ServiceOwnerError, builtin_plugin_of

REPO = Path(__file__).resolve().parents[2]


def run_as(module_name: str, source: str, **names: Any) -> dict:
    """Run ``source`` as if it were code of module ``module_name`` (what the registry reads)."""
    scope = {"__name__": module_name, **names}
    exec(compile(textwrap.dedent(source), f"<{module_name}>", "exec"), scope)
    return scope


def plugin_module(name: str, source: str) -> types.ModuleType:
    """A plugin module ``name`` made from ``source`` (as an installed plugin's module would be)."""
    module = types.ModuleType(name)
    module.__dict__.update({"hookimpl": hookimpl, "ServiceKey": ServiceKey, "SETTINGS": SETTINGS})
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), module.__dict__)
    sys.modules[name] = module
    return module


@pytest.fixture
def modules():
    made = []
    yield made
    for name in made:
        sys.modules.pop(name, None)


# -- keys are objects, declared ------------------------------------------------------------------

def test_a_string_key_is_refused(host):
    assert host.services[SETTINGS] is not None
    for attempt in (lambda: host.services["settings"], lambda: host.services.get("settings"),
                    lambda: "settings" in host.services, lambda: host.services.setdefault("settings", 1)):
        with pytest.raises(TypeError, match="'settings' as a service key.*never a string"):
            attempt()
    with pytest.raises(TypeError, match="never a string"):
        host.services["settings"] = object()
    assert services.service(host, SETTINGS) is host.services[SETTINGS]  # nothing replaced


def test_a_key_is_not_a_string_and_is_hashed_by_identity():
    twin = ServiceKey("settings", services.SettingsService, owner="settings")
    assert not isinstance(SETTINGS, str) and str(SETTINGS) == "settings"
    assert twin != SETTINGS and {SETTINGS: 1}.get(twin) is None


def test_an_undeclared_key_is_refused_naming_the_caller(host):
    stray = ServiceKey("stray", str, owner="stray")
    with pytest.raises(ServiceKeyError, match="module 'tests.host.test_service_keys' used service key 'stray'.*"
                                              "not declared"):
        host.services.get(stray)
    with pytest.raises(ServiceKeyError, match="plugin 'news' used service key 'stray'"):
        run_as("builtin_plugins.news.fake", "host.services[stray] = 'x'", host=host, stray=stray)
    twin = ServiceKey("settings", services.SettingsService, owner="settings")  # same name, not the declared key
    with pytest.raises(ServiceKeyError, match="'settings'.*not declared"):
        host.services.get(twin)


def test_a_publish_by_a_non_owner_is_refused(host):
    settings = host.services[SETTINGS]
    with pytest.raises(ServiceOwnerError, match="plugin 'news' .*may not publish service 'settings': "
                                                "only its owner 'settings' does"):
        run_as("builtin_plugins.news.collector", "host.services[SETTINGS] = object()", host=host, SETTINGS=SETTINGS)
    with pytest.raises(ServiceOwnerError, match="plugin 'host' .*may not withdraw service 'settings'"):
        run_as("svc_host.rest.fake", "host.services.pop(SETTINGS)", host=host, SETTINGS=SETTINGS)
    assert host.services[SETTINGS] is settings
    # the owner may; reading is anyone's
    run_as("builtin_plugins.settings.fake", "host.services[SETTINGS] = host.services[SETTINGS]",
           host=host, SETTINGS=SETTINGS)
    assert run_as("builtin_plugins.news.fake", "value = host.services.get(SETTINGS)",
                  host=host, SETTINGS=SETTINGS)["value"] is settings


@pytest.mark.parametrize("origin", ["third-party", "builtin"])
def test_a_plugin_publishing_another_plugins_service_is_refused_at_startup(make_host, modules, caplog, origin):
    intruder = plugin_module("intruder_plugin", """
        @hookimpl
        def startup(host):
            host.services[SETTINGS] = object()
    """)
    modules.append("intruder_plugin")
    if origin == "builtin":
        with pytest.raises(PluginError, match="'intruder'.*may not publish service 'settings'"):
            make_host(plugins=[("intruder", intruder, origin)])
        return
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("intruder", intruder, origin)])
    assert "intruder" not in host.plugins.info
    assert isinstance(host.services[SETTINGS], services.SettingsService)
    assert any("'intruder'" in r.getMessage() and "plugin 'intruder' (intruder_plugin) may not publish service "
               "'settings'" in r.getMessage() for r in caplog.records)


# -- a third party declares its own keys ------------------------------------------------------

def test_a_third_party_plugin_declares_and_publishes_its_own_key(make_host, modules):
    plugin = plugin_module("weather_station", """
        class Station:
            def reading(self):
                return 21.5

        STATION = ServiceKey("weather_station.station", Station, owner="weather_station", doc="the station")

        @hookimpl
        def register_service_keys():
            return [STATION]

        @hookimpl
        def startup(host):
            host.services[STATION] = Station()
    """)
    modules.append("weather_station")
    host = make_host(plugins=[("weather_station", plugin, "third-party")])
    assert plugin.STATION in host.registries.service_keys
    assert host.services[plugin.STATION].reading() == 21.5
    # anyone reads it; only its owner publishes it
    with pytest.raises(ServiceOwnerError, match="plugin 'news' .*only its owner 'weather_station'"):
        run_as("builtin_plugins.news.fake", "host.services[KEY] = None", host=host, KEY=plugin.STATION)


@pytest.mark.parametrize("declared, reason", [
    ('ServiceKey("borrowed", str, owner="settings")', "owned by 'settings'"),
    ('ServiceKey("settings", str, owner="squatter")', "'settings' is already declared by 'settings'"),
    ('"squatter.plain_name"', "register_service_keys"),
])
def test_a_bad_declaration_skips_the_plugin_naming_it(make_host, modules, caplog, declared, reason):
    plugin = plugin_module("squatter_plugin", f"""
        @hookimpl
        def register_service_keys():
            return [{declared}]
    """)
    modules.append("squatter_plugin")
    with caplog.at_level(logging.ERROR):
        host = make_host(plugins=[("squatter", plugin, "third-party")])
    assert "squatter" not in host.plugins.info
    assert any("'squatter'" in r.getMessage() and reason in r.getMessage() for r in caplog.records), \
        [r.getMessage() for r in caplog.records]


# -- every declared key is typed, and written by its owner only ----------------------------------

def test_every_declared_key_has_a_type_that_is_not_any():
    assert len({key.name for key in SERVICE_KEYS}) == len(SERVICE_KEYS)
    for key in SERVICE_KEYS:
        assert key.protocol is not Any and key.protocol is not object, key
        assert isinstance(key.protocol, type) or key.protocol is services.Callable, key
        variable = next(name for name, value in vars(services).items() if value is key)
        annotation = services.__annotations__[variable]
        assert "Any" not in annotation.replace("dict[str, Any]", ""), f"{variable}: {annotation}"
    with pytest.raises(TypeError, match="needs the Protocol"):
        ServiceKey("loose", Any, owner="someone")
    for needed in ("display_mode", "db_reader", "api_key_principals"):
        assert any(key.name == needed for key in SERVICE_KEYS), needed


def _writes(path: Path):
    """``(line, key expression, how)`` of each ``<x>.services[KEY] = ...``, ``.setdefault(KEY``, ``.pop(KEY``."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
                    and target.value.attr == "services"):
                yield node.lineno, target.slice, "publish"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("setdefault", "pop") and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "services" and node.args):
            yield node.lineno, node.args[0], node.func.attr


def test_every_builtin_write_is_by_the_keys_owner():
    """Statically, so writes on paths a test host never takes (lazy services, the canvas) count too."""
    checked = 0
    for folder in ("builtin_plugins", "svc_host"):
        for path in sorted((REPO / folder).rglob("*.py")):
            module_name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            writes = list(_writes(path))
            if not writes:
                continue
            module = importlib.import_module(module_name)
            for line, expr, how in writes:
                where = f"{path.relative_to(REPO)}:{line}"
                assert isinstance(expr, ast.Name), f"{where}: {how} under {ast.unparse(expr)}, not a declared key"
                key = getattr(module, expr.id, None)
                if key is None:  # a local alias: `key = KEY` in the function is not used here
                    raise AssertionError(f"{where}: {expr.id} is not a module-level key")
                assert isinstance(key, ServiceKey), f"{where}: {expr.id} is {key!r}, not a ServiceKey"
                assert key.owner == builtin_plugin_of(module_name), \
                    f"{where}: {builtin_plugin_of(module_name)!r} writes {key.name!r}, owned by {key.owner!r}"
                checked += 1
    assert checked >= 30


# -- the host as plugins see it -----------------------------------------------------------------

def test_the_host_satisfies_the_host_protocol(host):
    assert isinstance(host, hookspecs.host.Host)
    assert isinstance(host.services, ServiceRegistry)
    assert isinstance(host.clock, hookspecs.host.Clock)
    assert isinstance(host.settings, hookspecs.host.HostSettings)  # what prepare_storage receives too

    class Partial:
        services = {}

    assert not isinstance(Partial(), hookspecs.host.Host)


def test_a_plugin_under_test_replacing_its_installed_copy_is_held_to_its_own_keys(make_host, modules, caplog):
    """The authors' kit registers the plugin under test in place of its installed copy (origin
    ``test``, the installed one disabled): it is not a throwaway double, so ownership holds."""
    replacement = plugin_module("stocks_under_test", """
        @hookimpl
        def startup(host):
            host.services[SETTINGS] = object()
    """)
    modules.append("stocks_under_test")
    with caplog.at_level(logging.ERROR):
        host = make_host({"SVC_DISPLAY_DISABLE_PLUGINS": "stocks"}, plugins=[("stocks", replacement)])
    assert "stocks" not in host.plugins.info
    assert any("plugin 'stocks'" in r.getMessage() and "may not publish service 'settings'" in r.getMessage()
               for r in caplog.records)


def test_a_throwaway_test_plugin_may_stand_in_for_an_owner(make_host, modules):
    double = plugin_module("search_double", """
        class Search:
            def sync_terms(self):
                pass

        @hookimpl(trylast=True)
        def startup(host):
            host.services[SEARCH] = Search()
    """)
    double.SEARCH = services.SEARCH
    modules.append("search_double")
    host = make_host(plugins=[("double", double)])
    assert type(host.services[services.SEARCH]).__module__ == "search_double"
