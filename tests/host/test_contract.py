"""The contract in hookspecs/ is whole, typed and documented (datasette's test_docs.py style).

Fails when a hook has no signature line in docs/hooks.md, when a protocol, one of its
methods, a service key or a formatter is missing there, when a hook parameter is untyped,
or when a builtin service does not satisfy its protocol. Also: renderers given as
``"module:attr"`` are checked at startup and resolved naming the plugin at fault.
"""
import inspect
import logging
import re
import sys
from pathlib import Path

import pytest

import hookspecs
from hookspecs import ScreenType, hookimpl
from hookspecs import collect, content, render, services
from hookspecs import host as host_contract
from svc_host.plugins import PluginError, load_plugins
from svc_host.registries import build_registries, resolve_renderers
from svc_host.kit import formatting
from svc_host.kit import services as kit_services
from hookspecs.services import SETTINGS

REPO = Path(__file__).resolve().parents[2]
DOCS = (REPO / "docs" / "hooks.md").read_text()


def _clean(text):
    return text.replace("'", "")


def hook_specs():
    return [(name, value) for name, value in inspect.getmembers(hookspecs)
            if callable(value) and hasattr(value, "svc_display_spec")]


def protocols(module):
    return [cls for cls in vars(module).values()
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and getattr(cls, "_is_protocol", False)]


@pytest.mark.parametrize("name, spec", hook_specs(), ids=[n for n, _ in hook_specs()])
def test_every_hook_has_its_typed_signature_in_the_docs(name, spec):
    signature = inspect.signature(spec)
    for parameter in signature.parameters.values():
        assert parameter.annotation is not inspect.Parameter.empty, f"{name}({parameter.name}) is untyped"
        assert parameter.annotation != "Any", f"{name}({parameter.name}) is typed Any"
    assert signature.return_annotation is not inspect.Signature.empty
    assert f"`{name}{_clean(str(signature))}`" in DOCS, f"docs/hooks.md lacks the signature of {name}"


@pytest.mark.parametrize("cls", [c for m in (render, collect, services, content, host_contract)
                                 for c in protocols(m)],
                         ids=lambda c: c.__name__)
def test_every_protocol_and_method_is_documented(cls):
    section = re.search(rf"^### {cls.__name__}\n(.*?)(?=^#)", DOCS + "\n#", re.M | re.S)
    assert section, f"docs/hooks.md has no section for {cls.__name__}"
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__call__":
            continue
        if callable(value) or isinstance(value, property):
            assert f"`{name}" in section.group(1), f"{cls.__name__}.{name} is not documented"


def test_every_service_key_and_formatter_is_documented():
    assert len(services.SERVICE_KEYS) == len(set(services.SERVICE_KEYS)) >= 20
    for key in services.SERVICE_KEYS:
        assert key.owner, f"{key!r} names no owner"
        assert f"| `{key}` | `{key.owner}` |" in DOCS, f"service key {key!r} is not in docs/hooks.md"
    for name, value in vars(formatting).items():
        if inspect.isfunction(value) and value.__module__ == formatting.__name__ and not name.startswith("_"):
            assert f"`{name}(" in DOCS, f"formatter {name} is not documented"



def test_the_kit_writes_every_time_preset_the_contract_names():
    from hookspecs.schema import TIME_FORMAT_PRESET

    assert list(formatting.TIME_PRESETS) == TIME_FORMAT_PRESET["enum"]

def test_render_context_and_ticker_content_are_documented():
    for name in ("### RenderContext", "### TickerContent", "### Theme", "module:attr"):
        assert name in DOCS


def test_old_places_import_the_contract_instead_of_defining_it():
    from svc_host.kit import collecting
    from builtin_plugins.integrations import engine

    assert collecting.CollectorError is collect.CollectorError
    assert collect.CollectorContext in engine.CollectorContext.__mro__


def test_builtin_services_satisfy_their_protocols(host):
    checked = 0
    for key in services.SERVICE_KEYS:
        value = host.services.get(key)
        annotation = services.__annotations__.get(next(n for n, v in vars(services).items() if v is key))
        assert annotation == f"ServiceKey[{key.protocol.__name__}]" or key.protocol in (services.Callable, dict), \
            f"{key!r}: annotated {annotation}, typed {key.protocol!r}"
        if value is None:
            continue
        assert isinstance(value, key.protocol), f"{key!r} ({type(value).__name__}) does not satisfy {key.protocol}"
        checked += 1
    assert checked >= 20
    assert services.service(host, services.SETTINGS) is host.services[SETTINGS]


def test_require_names_the_missing_service_and_its_owner():
    class Bare:
        services = {}

    with pytest.raises(LookupError, match="'overlays'.*'overlays' plugin"):
        services.require(Bare(), services.OVERLAYS)
    assert kit_services.display_zone(Bare()).key == "UTC"


# -- renderers given with their type ------------------------------------------------------------

def hello_renderer(context):
    return context.type_id


RENDERERS = {"nested": hello_renderer}
NOT_CALLABLE = 42


class WithRenderer:
    def __init__(self, renderer):
        self.renderer = renderer

    @hookimpl
    def register_screen_types(self):
        return [ScreenType("with_renderer", "R", {"type": "object"}, {}, renderer=self.renderer)]


def _registries(renderer, origin="third-party"):
    plugins = load_plugins(disabled={"clients", "adoption", "screens", "display_program"}, extra=[("painter", WithRenderer(renderer), origin)])
    return plugins, build_registries(plugins)


@pytest.mark.parametrize("reference", [f"{__name__}:hello_renderer", f"{__name__}:RENDERERS.nested",
                                       hello_renderer])
def test_a_renderer_reference_resolves(reference):
    _, registries = _registries(reference)
    assert registries.screen_types.renderer("with_renderer") is hello_renderer


@pytest.mark.parametrize("reference, reason", [
    ("no colon here", "must be a callable or a 'module:attr' string"),
    ("no_such_module_xyz:thing", "does not exist"),
    (12, "not int"),
])
def test_a_bad_renderer_reference_is_refused_at_startup_naming_the_plugin(reference, reason, caplog):
    with caplog.at_level(logging.ERROR):
        plugins, registries = _registries(reference)
    assert "with_renderer" not in registries.screen_types and "painter" not in plugins.info
    assert any("'painter'" in r.getMessage() and reason in r.getMessage() for r in caplog.records)
    with pytest.raises(PluginError, match=f"'painter'.*{re.escape(reason)}"):
        _registries(reference, origin="builtin")


def test_a_renderer_that_does_not_resolve_at_canvas_start_names_the_plugin(caplog):
    class FakeHost:
        pass

    for reference, origin in ((f"{__name__}:missing_name", "third-party"), (f"{__name__}:NOT_CALLABLE", "builtin")):
        host = FakeHost()
        host.plugins, host.registries = _registries(reference, origin)
        assert "with_renderer" in host.registries.screen_types  # the module exists: startup passes
        if origin == "builtin":
            with pytest.raises(PluginError, match="'painter'.*not callable"):
                resolve_renderers(host)
        else:
            with caplog.at_level(logging.ERROR):
                resolve_renderers(host)
            assert host.registries.screen_types.renderer("with_renderer") is None
            assert any("'painter'" in r.getMessage() and "missing_name" in r.getMessage() for r in caplog.records)


def test_headless_startup_imports_no_renderer_module(tmp_path):
    import subprocess

    code = ("import sys\nfrom svc_host.config import load_settings\nfrom svc_host.host import build_host\n"
            f"h = build_host(load_settings({{'SVC_DISPLAY_DATA_DIR': {str(tmp_path)!r}, 'SVC_DISPLAY_HEADLESS': '1'}}),"
            " with_routes=False)\n"
            "print(sorted(m for m in sys.modules if m.startswith('kivy') or m.endswith('.display')\n"
            "             or m == 'svc_host.kit.display.ui'))\n"
            "h.close()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
