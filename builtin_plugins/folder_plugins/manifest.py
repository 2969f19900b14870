"""Folder plugins: discovery and manifest validation (CONTRACT "Folder plugins", spec 1).

Each sub-folder of ``SVC_DISPLAY_PLUGINS_DIR`` holding a ``manifest.json`` is a plugin;
anything else is skipped with one log line. A manifest is checked against
:data:`MANIFEST_SCHEMA` (JSON Schema draft 2020-12, unknown keys refused) with the
``jsonschema`` library; template files must be inside the plugin's folder and valid templates
(:func:`.templates.load_template`, checked here so a bad one refuses its plugin). A refused
plugin (bad manifest, duplicate id, an id an entry-point plugin already has) is logged in
one line naming it and the reason, listed as ``failed`` and never started; nothing here
stops the host.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

import jsonschema

from builtin_plugins.folder_plugins.jsonfile import error_text, first_error, read_json
from builtin_plugins.folder_plugins.templates import TemplateError, load_template
from hookspecs import ENTRY_POINT_GROUP

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
MANIFEST_MAX_BYTES = 64 * 1024
DEFAULT_HEALTH_PATH = "/health"
PLUGIN_ID_PATTERN = "^[a-z][a-z0-9_-]{0,63}$"
_NO_NUL = "^[^\\u0000]*$"

MANIFEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "svc-display folder plugin manifest (manifest.json)",
    "type": "object",
    "required": ["id", "name", "version"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": PLUGIN_ID_PATTERN,
               "description": "the plugin's id: principal plugin:<id>, key-value ticker.marquee.<id>"},
        "name": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": _NO_NUL,
                 "description": "a name for people"},
        "version": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": _NO_NUL},
        "description": {"type": "string", "maxLength": 1000, "pattern": _NO_NUL},
        "sidecar": {
            "type": "object",
            "description": "a program the display starts in the plugin's folder and keeps running",
            "required": ["command"],
            "additionalProperties": False,
            "properties": {
                "command": {
                    "type": "array", "minItems": 1, "maxItems": 64,
                    "items": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": _NO_NUL},
                    "description": "argv; a relative program path is relative to the plugin's folder, a bare "
                                   "name is looked up on PATH",
                },
                "env": {
                    "type": "object", "maxProperties": 64,
                    "description": "extra environment variables (the SVC_PLUGIN_* and SVC_DISPLAY_API_* "
                                   "names are the display's)",
                    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]{0,127}$",
                                      "not": {"pattern": "^SVC_(PLUGIN|DISPLAY_API)_"}},
                    "additionalProperties": {"type": "string", "maxLength": 4096, "pattern": _NO_NUL},
                },
                "health_path": {"type": "string", "pattern": "^/[!-~]{0,511}$",
                                "default": DEFAULT_HEALTH_PATH,
                                "description": "polled with GET; any 2xx answer means healthy"},
            },
        },
        "templates": {
            "type": "object", "maxProperties": 64,
            "description": "template name -> file inside the plugin's folder",
            "propertyNames": {"pattern": PLUGIN_ID_PATTERN},
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": _NO_NUL},
        },
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(MANIFEST_SCHEMA)
_PLUGIN_ID = re.compile(PLUGIN_ID_PATTERN)


class ManifestError(ValueError):
    """Why a plugin folder was refused (one line); ``plugin_id`` when the manifest named one."""

    def __init__(self, message: str, plugin_id: str | None = None):
        super().__init__(message)
        self.plugin_id = plugin_id


@dataclass(frozen=True)
class FolderPlugin:
    id: str
    name: str
    version: str
    folder: Path
    description: str = ""
    sidecar: dict[str, Any] | None = None
    templates: dict[str, Path] = field(default_factory=dict)
    layouts: dict[str, dict[str, Any]] = field(default_factory=dict, compare=False)
    """Each template's content, validated (:mod:`.templates`), by name."""

    @property
    def health_path(self) -> str:
        return (self.sidecar or {}).get("health_path", DEFAULT_HEALTH_PATH)


@dataclass(frozen=True)
class Refused:
    folder: Path
    plugin_id: str | None
    reason: str

    @property
    def label(self) -> str:
        return self.plugin_id or self.folder.name


def _check_line_ends(data: dict, plugin_id: str | None) -> None:
    """Python's ``$`` (which ``jsonschema`` uses) also matches before a final newline, where JSON
    Schema's ECMA ``$`` does not: refuse what only Python's reading lets through."""
    sidecar = data.get("sidecar") or {}
    names = [("/id", data["id"]), ("/sidecar/health_path", sidecar.get("health_path", "/")),
             *((f"/templates/{n}", n) for n in data.get("templates", {})),
             *((f"/sidecar/env/{n}", n) for n in sidecar.get("env", {}))]
    for where, value in names:
        if value.endswith("\n"):
            raise ManifestError(f"{MANIFEST} {where}: {value!r} ends with a line break", plugin_id)


def load_manifest(folder: Path) -> FolderPlugin:
    """The plugin in ``folder``; :class:`ManifestError` with the first reason it is refused."""
    try:
        data = read_json(folder / MANIFEST, MANIFEST_MAX_BYTES)
    except ValueError as exc:
        raise ManifestError(f"{MANIFEST} {exc}") from None
    plugin_id = data.get("id") if isinstance(data, dict) else None
    plugin_id = plugin_id if isinstance(plugin_id, str) and _PLUGIN_ID.fullmatch(plugin_id) else None
    error = first_error(_VALIDATOR, data)
    if error is not None:
        raise ManifestError(f"{MANIFEST} {error_text(error)}", plugin_id)
    _check_line_ends(data, plugin_id)
    templates, layouts = {}, {}
    root = folder.resolve()
    for name, file in sorted(data.get("templates", {}).items()):
        target = (folder / file).resolve()
        where = f"{MANIFEST} /templates/{name}: {file!r}"
        if Path(file).is_absolute() or not target.is_relative_to(root):
            raise ManifestError(f"{where} is outside the plugin's folder", plugin_id)
        if not target.is_file():
            raise ManifestError(f"{where} is not a file in the plugin's folder", plugin_id)
        try:
            layouts[name] = load_template(root, target)
        except TemplateError as exc:
            raise ManifestError(f"template {name!r} ({file}) {exc}", plugin_id) from None
        templates[name] = target
    return FolderPlugin(id=data["id"], name=data["name"], version=data["version"], folder=root,
                        description=data.get("description", ""), sidecar=data.get("sidecar"),
                        templates=templates, layouts=layouts)


def entry_point_names() -> set[str]:
    """Names of the installed entry-point plugins (a folder plugin may not take one)."""
    return {ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def discover(plugins_dir: Path, taken: Iterable[str] = (), quiet: bool = False,
             ) -> tuple[list[FolderPlugin], list[Refused]]:
    """Every plugin folder of ``plugins_dir`` (in name order), and those refused with their reason.

    Each refusal and each skipped entry is logged in one line (at debug level when ``quiet``:
    a look that only lists them, the start logs them). Of two folders with the same
    id, the first in name order keeps it. ``taken`` are ids already used (entry points).
    """
    plugins: list[FolderPlugin] = []
    refused: list[Refused] = []
    try:
        entries = sorted(plugins_dir.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        log.log(logging.DEBUG if quiet else logging.ERROR,
                "SVC_DISPLAY_PLUGINS_DIR %s cannot be read: %s; no folder plugins", plugins_dir,
                  exc.strerror or exc)
        return plugins, refused
    taken = set(taken)
    owners: dict[str, Path] = {}
    for entry in entries:
        if not entry.is_dir() or not (entry / MANIFEST).is_file():
            log.log(logging.DEBUG if quiet else logging.INFO,
                    "plugins dir: skipping %r: not a folder with a %s", entry.name, MANIFEST)
            continue
        try:
            plugin = load_manifest(entry)
            if plugin.id in owners:
                raise ManifestError(f"duplicate id {plugin.id!r}: the folder {owners[plugin.id].name!r} "
                                    "has it already", plugin.id)
            if plugin.id in taken:
                raise ManifestError(f"id {plugin.id!r} is the name of an entry-point plugin", plugin.id)
        except ManifestError as exc:
            item = Refused(entry, exc.plugin_id, str(exc))
            log.log(logging.DEBUG if quiet else logging.ERROR,
                    "skipping folder plugin %r (%s): %s", item.label, entry, item.reason)
            refused.append(item)
            continue
        owners[plugin.id] = entry
        plugins.append(plugin)
    return plugins, refused
