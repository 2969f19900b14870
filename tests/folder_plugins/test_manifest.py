"""Manifest validation and discovery (no processes): every refusal is one log line naming the plugin."""
from __future__ import annotations

import json
import logging

import jsonschema
import pytest

from builtin_plugins.folder_plugins.manifest import MANIFEST_SCHEMA, ManifestError, discover, load_manifest
from tests.folder_plugins.sidecars import EXAMPLES, documented_json, write_plugin

GOOD = {"id": "lobby-sensor", "name": "Lobby sensor", "version": "1.2.0", "description": "lobby motion",
        "sidecar": {"command": ["python3", "sensor.py"], "env": {"LEVEL": "3"}, "health_path": "/ping"},
        "templates": {"card": "card.json"}}


def test_the_documented_schema_is_the_one_the_code_uses():
    assert documented_json("manifest-schema") == MANIFEST_SCHEMA
    jsonschema.Draft202012Validator.check_schema(MANIFEST_SCHEMA)


def test_the_examples_are_valid(tmp_path):
    for folder in ("python-trivia", "perl-jokes"):
        plugin = load_manifest(EXAMPLES / folder)
        assert plugin.id == folder and plugin.sidecar["command"]


def test_a_good_manifest(tmp_path):
    folder = write_plugin(tmp_path, "sensor", GOOD, {"card.json": '{"blocks": [{"type": "title", "text": "Hi"}]}'})
    plugin = load_manifest(folder)
    assert (plugin.id, plugin.name, plugin.version) == ("lobby-sensor", "Lobby sensor", "1.2.0")
    assert plugin.health_path == "/ping" and plugin.description == "lobby motion"
    assert plugin.templates == {"card": (folder / "card.json").resolve()}
    assert plugin.layouts == {"card": {"blocks": [{"type": "title", "text": "Hi"}]}}
    bare = write_plugin(tmp_path, "bare", {"id": "b", "name": "B", "version": "1"})
    assert load_manifest(bare).sidecar is None and load_manifest(bare).health_path == "/health"


def variant(**changes):
    manifest = json.loads(json.dumps(GOOD))
    for path, value in changes.items():
        target = manifest
        *parents, last = path.split("__")
        for part in parents:
            target = target[part]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return manifest


@pytest.mark.parametrize("manifest, words", [
    (variant(colour="red"), "'colour' was unexpected"),
    (variant(sidecar__restart="always"), "/sidecar: Additional properties"),
    (variant(id="Lobby"), "/id: 'Lobby' does not match"),
    (variant(id="lobby\n"), "/id"),
    (variant(id="x" * 65), "/id"),
    (variant(id=KeyError), "'id' is a required property"),
    (variant(name=""), "/name"),
    (variant(version=3), "/version: 3 is not of type 'string'"),
    (variant(sidecar__command=[]), "/sidecar/command: [] should be non-empty"),
    (variant(sidecar__command="python3 sensor.py"), "is not of type 'array'"),
    (variant(sidecar__command=["python3", "a\u0000b"]), "/sidecar/command/1"),
    (variant(sidecar__env={"SVC_DISPLAY_API_KEY": "mine"}), "/sidecar/env"),
    (variant(sidecar__env={"SVC_PLUGIN_PORT": "80"}), "/sidecar/env"),
    (variant(sidecar__env={"LEVEL": 3}), "/sidecar/env/LEVEL"),
    (variant(sidecar__health_path="health"), "/sidecar/health_path"),
    (variant(sidecar__health_path="/with space"), "/sidecar/health_path"),
    (variant(templates__card="missing.json"), "/templates/card: 'missing.json' is not a file"),
    (variant(templates__card="../outside.json"), "outside the plugin's folder"),
    (variant(templates__card="/etc/hostname"), "outside the plugin's folder"),
    (variant(templates__Bad="card.json"), "/templates"),
    ("[1, 2]", "is not of type 'object'"),
    ("{nope", "not JSON"),
    (b"\xff\xfe", "not JSON"),
])
def test_bad_manifests_are_refused_with_the_reason(tmp_path, manifest, words):
    folder = tmp_path / "plugin"
    folder.mkdir()
    (tmp_path / "outside.json").write_text("{}")
    (folder / "card.json").write_text("{}")
    if isinstance(manifest, bytes):
        (folder / "manifest.json").write_bytes(manifest)
    else:
        (folder / "manifest.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    with pytest.raises(ManifestError) as refused:
        load_manifest(folder)
    assert words in str(refused.value)


def test_a_huge_manifest_is_refused_without_reading_it_all(tmp_path):
    folder = tmp_path / "huge"
    folder.mkdir()
    (folder / "manifest.json").write_text(" " * (65 * 1024) + "{}")
    with pytest.raises(ManifestError, match="larger than 64 KiB"):
        load_manifest(folder)


def test_discovery_logs_one_line_per_refused_plugin_and_skipped_entry(tmp_path, caplog):
    write_plugin(tmp_path, "a-first", {"id": "same", "name": "A", "version": "1"})
    write_plugin(tmp_path, "b-second", {"id": "same", "name": "B", "version": "1"})
    write_plugin(tmp_path, "c-bad", variant(colour="red"))
    write_plugin(tmp_path, "d-taken", {"id": "clients", "name": "D", "version": "1"})
    write_plugin(tmp_path, "e-good", {"id": "good", "name": "E", "version": "1"})
    (tmp_path / "readme.txt").write_text("hello")
    (tmp_path / "no-manifest").mkdir()
    with caplog.at_level(logging.INFO, logger="builtin_plugins.folder_plugins"):
        plugins, refused = discover(tmp_path, taken={"clients"})
    assert [p.id for p in plugins] == ["same", "good"] and plugins[0].name == "A"
    reasons = {item.folder.name: item.reason for item in refused}
    assert reasons["b-second"] == "duplicate id 'same': the folder 'a-first' has it already"
    assert "'colour' was unexpected" in reasons["c-bad"]
    assert reasons["d-taken"] == "id 'clients' is the name of an entry-point plugin"
    lines = caplog.messages
    for folder, label in (("b-second", "same"), ("c-bad", "lobby-sensor"), ("d-taken", "clients")):
        mine = [line for line in lines if f"({tmp_path / folder})" in line]
        assert len(mine) == 1 and mine[0].startswith(f"skipping folder plugin {label!r}")
    assert len([line for line in lines if "'readme.txt'" in line]) == 1
    assert len([line for line in lines if "'no-manifest'" in line]) == 1


def test_a_missing_plugins_dir_is_one_line(tmp_path, caplog):
    with caplog.at_level(logging.ERROR):
        assert discover(tmp_path / "nowhere") == ([], [])
    assert len(caplog.messages) == 1 and "cannot be read" in caplog.messages[0]
