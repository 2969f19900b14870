"""``svc-display plugin new NAME``: a new plugin distribution, copied from the example.

The template is ``examples/hello-plugin`` itself (``svc_display/plugin-template`` links to
it and ships as package data), so the skeleton is always the example that ``make test``
runs, renamed: ``hello`` becomes NAME in the entry point, the package (``NAME_plugin``),
the type ids, the table, the route and the tests. NAME is one lowercase word because it
becomes the integration family too, which is the text before the first ``_`` of an
integration type id (spec 2.12).
"""
from __future__ import annotations

import keyword
import re
from importlib import resources
from pathlib import Path

TEMPLATE_NAME = "hello"
NAME = re.compile(r"^[a-z][a-z0-9]{1,39}$")
# what the template's build leaves behind (pip builds in the source folder) is not copied
SKIPPED = ("__pycache__", "build", "dist", ".pytest_cache")


class ScaffoldError(ValueError):
    """NAME or the target folder is not usable; the message says why."""


def taken_names(disabled: set[str] = frozenset()) -> set[str]:
    """Names a new plugin must not take: installed plugins, type ids and integration families."""
    from hookspecs import ENTRY_POINT_GROUP
    from svc_host.plugins import PluginError, installed_entry_points, load_plugins
    from svc_host.registries import build_registries

    taken = {ep.name for ep in installed_entry_points(ENTRY_POINT_GROUP)}
    try:
        registries = build_registries(load_plugins(disabled))
    except PluginError:  # a broken installation: the plugin names still count
        return taken
    for registry in (registries.screen_types, registries.ticker_types, registries.overlay_types):
        taken.update(registry.types)
    taken.update(type_id.split("_", 1)[0] for type_id in registries.integration_types.types)
    return taken


def check_name(name: str, taken: set[str] = frozenset()) -> str:
    if not NAME.match(name or ""):
        suggestion = re.sub(r"[^a-z0-9]", "", (name or "").lower())
        hint = f"; try {suggestion!r}" if NAME.match(suggestion) else ""
        raise ScaffoldError(f"plugin name {name!r} must be one word of 2 to 40 lowercase letters and digits "
                            f"(it becomes the entry point, the type ids and the integration family){hint}")
    if keyword.iskeyword(name) or name in taken or f"{name}_note" in taken or f"{name}_greetings" in taken:
        raise ScaffoldError(f"plugin name {name!r} is taken (by a Python keyword, an installed plugin, "
                            "a type id or an integration family)")
    return name


def template_dir() -> Path:
    return Path(str(resources.files("svc_display") / "plugin-template"))


def rename(text: str, name: str) -> str:
    """The template's text with ``hello`` replaced by ``name`` (``Hello`` by ``Name``), version 0.1.0."""
    text = text.replace('version = "1.1.0"', 'version = "0.1.0"')
    return text.replace(TEMPLATE_NAME.capitalize(), name.capitalize()).replace(TEMPLATE_NAME, name)


def new_plugin(name: str, target: Path, taken: set[str] = frozenset()) -> list[Path]:
    """Write the skeleton of plugin ``name`` into ``target`` (new or empty); return the files written."""
    check_name(name, taken)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(f"{target} exists and is not an empty folder")
    source = template_dir()
    written = []
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_dir() or any(part in SKIPPED or part.endswith(".egg-info") for part in relative.parts):
            continue
        destination = target / rename(str(relative), name)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(rename(path.read_text(), name))
        written.append(destination)
    return written
