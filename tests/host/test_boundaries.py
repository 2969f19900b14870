"""Declared dependencies between builtin packages (Home Assistant's hassfest, with ``ast``).

Every package under ``builtin_plugins/`` is a plugin (an entry point: no shared grab-bag
package) and may import the contract (``hookspecs``), the host (``svc_host``) and itself;
any other builtin package it imports must be listed in its ``REQUIRES`` tuple (read from the
source, nothing imported), the declarations must name real packages and form no cycle, and
nothing under ``builtin_plugins/``, ``svc_display/`` or ``examples/`` imports the test suite
and no test module imports another;
``svc_display/`` (the plugin authors' kit) and ``examples/`` import no builtin plugin at all.
"""
import ast
import functools
import json
import sys
import tomllib
from pathlib import Path

import pytest

from svc_host.plugins import PluginError, load_plugins

REPO = Path(__file__).resolve().parents[2]
BUILTINS = REPO / "builtin_plugins"


def packages() -> list[str]:
    return sorted(p.name for p in BUILTINS.iterdir() if (p / "__init__.py").is_file())


def declared(package: str) -> tuple[str, ...]:
    tree = ast.parse((BUILTINS / package / "__init__.py").read_text())
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == "REQUIRES":
            return tuple(ast.literal_eval(node.value))
    return ()


def imported_modules(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                         if node.module == "builtin_plugins")
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def cross_imports(package: str) -> dict[str, list[str]]:
    """Other builtin package -> the places (file:line) that import it."""
    uses: dict[str, list[str]] = {}
    for path in sorted((BUILTINS / package).rglob("*.py")):
        for line, module in imported_modules(path):
            parts = module.split(".")
            if parts[0] == "builtin_plugins" and len(parts) > 1 and parts[1] != package:
                uses.setdefault(parts[1], []).append(f"{path.relative_to(REPO)}:{line}")
    return uses


def test_every_builtin_package_is_a_plugin():
    """No shared kit under builtin_plugins/: a helper two features need lives in the contract
    (hookspecs) or the host (svc_host), or one feature owns it and the other declares it."""
    entry_points = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    plugins = {value.split(".", 1)[1] for value in entry_points["svc_display.plugins"].values()}
    assert set(packages()) == plugins


@pytest.mark.parametrize("package", packages())
def test_every_cross_package_import_is_declared(package):
    allowed = set(declared(package))
    undeclared = {other: places for other, places in cross_imports(package).items() if other not in allowed}
    assert not undeclared, f"builtin_plugins/{package} imports undeclared packages (add to REQUIRES): {undeclared}"


@pytest.mark.parametrize("package", packages())
def test_declarations_name_real_packages_and_are_used(package):
    known = set(packages())
    uses = cross_imports(package)
    for requirement in declared(package):
        assert requirement in known, f"{package} requires unknown package {requirement!r}"
        assert requirement in uses, f"{package} declares {requirement!r} but never imports it"


# -- tables: each plugin's entities are its own -----------------------------------------------

# (package, entity) uses still to be replaced by a service of the entity's owner, each with why.
KNOWN_FOREIGN_ENTITIES = {
    # cache dependencies, not access: the list cache drops ticker items when these tables change
    ("ticker", "KeyValue"): "plugin marquees are key-values: TickerItems.tables() names them",
    ("ticker", "DisplaySetting"): "ticker items follow the display settings: TickerItems.tables() names them",
    ("folder_plugins", "KeyValue"): "the plugin ticker type's reads (types.json): its lines are key-values",
}
# (folder, entity) of the host and the controller, likewise.
KNOWN_HOST_ENTITIES: dict[tuple[str, str], str] = {}


def entity_owners() -> dict[str, str]:
    """Entity name -> the builtin package defining it (``class Name(db.Entity)``)."""
    return dict(_entity_owners())


@functools.cache  # every file of builtin_plugins parsed once per run, not once per test (0.4 s of CPU each)
def _entity_owners() -> dict[str, str]:
    owners = {}
    for path in BUILTINS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(base, ast.Attribute) and base.attr == "Entity" for base in node.bases):
                owners[node.name] = path.relative_to(BUILTINS).parts[0]
    return owners


def _is_database(node: ast.AST) -> bool:
    """``db``, ``host.db``, ``ctx.db``, ``self.host.db`` ..."""
    return isinstance(node, ast.Name) and node.id == "db" or isinstance(node, ast.Attribute) and node.attr == "db"


def entities_used(source: str) -> list[tuple[int, str]]:
    """Entities a module reaches on the database: ``<db>.Name``, ``getattr(<db>, "Name")``,
    ``<db>.entities["Name"]`` and ``"Name" in <db>.entities`` (names only known at run time
    are not seen)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _is_database(node.value) and node.attr[:1].isupper():
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) >= 2 and _is_database(node.args[0]) and isinstance(node.args[1], ast.Constant):
            found.append((node.lineno, node.args[1].value))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "entities" and _is_database(node.value.value) \
                and isinstance(node.slice, ast.Constant):
            found.append((node.lineno, node.slice.value))
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                and any(isinstance(c, ast.Attribute) and c.attr == "entities" and _is_database(c.value)
                        for c in node.comparators):
            found.append((node.lineno, node.left.value))
    return found


def entity_names(source: str, names: set[str]) -> list[tuple[int, str]]:
    """String constants (docstrings aside) that are one of ``names``: a table named as data and
    reached later (``{"joke": "Joke"}`` then ``getattr(db, entity)``)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
            and id(node) not in docstrings]


def foreign_entities(package: str, owners: dict[str, str], root: Path = BUILTINS) -> dict[str, list[str]]:
    """Another package's entity -> the places (file:line, or types.json:type id for a type's
    ``reads``) in ``root / package`` that use it."""
    uses: dict[str, list[str]] = {}

    def where(path: Path) -> Path:
        return path.relative_to(REPO if path.is_relative_to(REPO) else root)

    for path in sorted((root / package).rglob("*.py")):
        source = path.read_text()
        for line, name in sorted(set(entities_used(source) + entity_names(source, set(owners)))):
            if owners.get(name, package) != package:
                uses.setdefault(name, []).append(f"{where(path)}:{line}")
    for path in sorted((root / package).rglob("types.json")):
        for kind in json.loads(path.read_text()).values():
            for item in kind:
                for name in item.get("reads", ()):
                    if owners.get(name, package) != package:
                        uses.setdefault(name, []).append(f"{where(path)}:{item['id']}")
    return uses


@pytest.mark.parametrize("package", packages())
def test_no_plugin_touches_another_plugins_entity(package):
    owners = entity_owners()
    foreign = {name: places for name, places in foreign_entities(package, owners).items()
               if (package, name) not in KNOWN_FOREIGN_ENTITIES}
    assert not foreign, (f"builtin_plugins/{package} uses other plugins' entities (ask the owner's service in "
                         f"hookspecs/services.py instead): {({n: (owners[n], p) for n, p in foreign.items()})}")


@pytest.mark.parametrize("folder", ["svc_host", "svc_controller"])
def test_the_host_and_the_controller_name_no_feature_table(folder):
    """The host reaches features through hooks and services, the controller over HTTP: neither
    names a table a builtin feature declares."""
    owners = entity_owners()
    foreign = {name: places for name, places in foreign_entities(folder, owners, REPO).items()
               if (folder, name) not in KNOWN_HOST_ENTITIES}
    assert not foreign, f"{folder} uses features' entities (ask the owner's service): {foreign}"


def test_the_known_foreign_entity_uses_still_exist():
    owners = entity_owners()
    for package, name in KNOWN_FOREIGN_ENTITIES:
        assert name in foreign_entities(package, owners), f"{package} no longer uses {name}: drop it from the list"
    for folder, name in KNOWN_HOST_ENTITIES:
        assert name in foreign_entities(folder, owners, REPO), f"{folder} no longer uses {name}: drop it"


def test_a_seeded_violation_of_each_kind_is_found(tmp_path):
    """One feature reaching another's table each way the check knows, in a package of its own."""
    seeded = tmp_path / "seeded"
    seeded.mkdir()
    (seeded / "__init__.py").write_text('''"""Docstrings may name Joke."""
ENTITIES = {"joke": "Joke"}                 # a table named as data, reached with getattr later
MEMBERS = {"screens": ("Screen", "name")}


def collect(ctx, host, db):
    ctx.db.KeyValue.get(key="k")            # attribute
    getattr(host.db, "Alert", None)         # getattr with the name
    host.db.entities["Task"]                # the entities mapping
    if "ApiClient" in db.entities:          # membership
        pass
    return getattr(ctx.db, ENTITIES["joke"])
''')
    found = foreign_entities("seeded", entity_owners(), tmp_path)
    assert {name: [place.split(":")[1] for place in places] for name, places in found.items()} == {
        "Joke": ["2"], "Screen": ["3"], "KeyValue": ["7"], "Alert": ["8"], "Task": ["9"], "ApiClient": ["10"]}


def test_the_entity_check_sees_each_way_of_reaching_a_table():
    source = """
def collect(ctx, host, db, self):
    ctx.db.KeyValue.get(key="k")
    self.host.db.KeyValue(key="k", value="v")
    db.Screen.select()
    getattr(ctx.db, "Alert", None)
    host.db.entities["Task"]
    if "ApiClient" in host.db.entities: pass
    ctx.db.lower_case_attribute
    other.KeyValue
"""
    assert sorted(entities_used(source)) == [(3, "KeyValue"), (4, "KeyValue"), (5, "Screen"), (6, "Alert"),
                                             (7, "Task"), (8, "ApiClient")]
    assert entity_owners()["KeyValue"] == "settings"


def find_cycle(graph: dict[str, tuple[str, ...]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if state.get(nxt) is None:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if state.get(node) is None:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_declared_dependencies_have_no_cycle():
    graph = {package: declared(package) for package in packages()}
    assert find_cycle(graph) is None, f"dependency cycle: {' -> '.join(find_cycle(graph))}"


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": ("b",), "b": ("c",), "c": ("a",)}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ("b",), "b": ()}) is None


def imports_in(folder: str, prefix: str) -> list[str]:
    return [f"{path.relative_to(REPO)}:{line}" for path in sorted((REPO / folder).rglob("*.py"))
            for line, module in imported_modules(path) if module == prefix or module.startswith(prefix + ".")]


@pytest.mark.parametrize("folder", ["builtin_plugins", "svc_display", "examples"])
def test_no_plugin_imports_the_test_suite(folder):
    assert imports_in(folder, "tests") == []


@pytest.mark.parametrize("folder", ["svc_display", "examples"])
def test_the_authors_kit_and_the_example_use_only_the_contract_and_the_host(folder):
    assert imports_in(folder, "builtin_plugins") == []


def imports_naming_test_modules(path: Path, root: Path) -> list[str]:
    """file:line of every import in ``path`` that names a test module (``tests.x.test_y``, or
    ``test_y`` taken from ``tests.x``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        if any(module.split(".")[0] == "tests" and module.split(".")[-1].startswith("test_") for module in modules):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def imports_of_test_modules(root: Path) -> list[str]:
    return [place for folder in ("tests", "benchmarks") for path in sorted((root / folder).rglob("*.py"))
            for place in imports_naming_test_modules(path, root)]


def test_no_test_module_imports_another():
    """Tests import the test kit (svc_display.testing) and helper modules (tests/raw_http.py,
    a folder's own such as tests/display/canvas.py), never a test module: a helper two modules
    share lives in a helper module. Benchmarks likewise."""
    assert imports_of_test_modules(REPO) == []


def test_a_test_importing_a_test_module_is_found(tmp_path):
    folder = tmp_path / "tests" / "seeded"
    folder.mkdir(parents=True)
    (folder / "helpers.py").write_text("def shared():\n    pass\n")
    (folder / "test_ok.py").write_text("from tests.seeded.helpers import shared\nfrom tests import REPO\n")
    (folder / "test_bad.py").write_text("import os\nfrom tests.other.test_x import helper\n"
                                        "import tests.other.test_y\n"
                                        "def test_late():\n    from tests.seeded import test_ok\n")
    assert imports_of_test_modules(tmp_path) == [
        "tests/seeded/test_bad.py:2", "tests/seeded/test_bad.py:3", "tests/seeded/test_bad.py:5"]


# (file, imported package) still to be replaced, each with why.
KNOWN_HOST_IMPORTS: dict[tuple[str, str], str] = {}  # none left: the scaffold moved into the host


@pytest.mark.parametrize("folder, forbidden", [("svc_controller", "builtin_plugins"), ("svc_host", "builtin_plugins"),
                                               ("svc_controller", "svc_display"), ("svc_host", "svc_display")])
def test_the_host_and_the_controller_import_no_feature_and_not_the_kit(folder, forbidden):
    """The host and the controller use the contract (hookspecs), the host's own modules and HTTP:
    a helper both sides need lives in svc_host (passwords, private addresses, StrictBoolean,
    the data dir's SecretBox)."""
    found = [place for place in imports_in(folder, forbidden)
             if (place.split(":")[0], forbidden) not in KNOWN_HOST_IMPORTS]
    assert found == [], f"{folder} imports {forbidden}: {found}"


def test_the_known_host_imports_still_exist():
    for path, package in KNOWN_HOST_IMPORTS:
        folder = path.split("/")[0]
        assert any(place.startswith(path + ":") for place in imports_in(folder, package)), \
            f"{path} no longer imports {package}: drop it from the list"


def test_a_builtin_whose_requirement_is_disabled_stops_startup_naming_both():
    with pytest.raises(PluginError, match="'adoption': requires 'clients', which is disabled"):
        load_plugins(disabled={"clients"})
    assert "adoption" not in load_plugins(disabled={"clients", "adoption"}).info
    assert "adoption" in load_plugins().info


def test_a_third_party_plugin_whose_requirement_is_missing_is_skipped(tmp_path, env):
    import os
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    (site / "needy_plugin.py").write_text("REQUIRES = ('clients',)\n")
    dist = site / "svc_display_needy-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: svc-display-needy\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[svc_display.plugins]\nneedy = needy_plugin\n")
    out = subprocess.run([sys.executable, "-m", "svc_host", "plugins", "list"], capture_output=True, text=True,
                         timeout=120, cwd=REPO,
                         env={**os.environ, **env, "PYTHONPATH": str(site),
                              "SVC_DISPLAY_DISABLE_PLUGINS": "clients,adoption"})
    assert out.returncode == 0, out.stderr
    needy = [line for line in out.stdout.splitlines() if line.startswith("needy ")]
    assert len(needy) == 1 and " failed " in needy[0] and "requires 'clients'" in needy[0]
    assert "skipping plugin 'needy': requires 'clients', which is disabled" in out.stderr


# The public host kit: the one host package a plugin (builtin or third party) may import, besides
# the contract (hookspecs). docs/hooks.md, "The public host kit", names each of its modules.
PUBLIC_HOST_KIT = "svc_host.kit"
# (importing folder, host module) of host-side builtins that reach into the host itself, each with why.
KNOWN_HOST_INTERNALS = {
    ("maintenance", "svc_host"): "the backup archive records the host's version",
    ("maintenance", "svc_host.backup_archive.format"): "backup and restore are the host's archive format",
    ("maintenance", "svc_host.backup_archive.reader"): "a restore reads the archive with the host's one checker",
    ("maintenance", "svc_host.backup_archive.database"): "a restore compares the archive's schema with the live one",
    ("maintenance", "svc_host.http.core_routes"): "an upgrade names the platform the way the health route does",
    ("maintenance", "svc_host.plugins"): "a restore checks the archive against the plugins it would load",
    ("maintenance", "svc_host.registries"): "a restore checks the archive against the plugins it would load",
    ("permissions_doc", "svc_host.plugins"): "the permissions document lists every plugin's routes",
    ("permissions_doc", "svc_host.registries"): "the permissions document lists every plugin's routes",
    ("permissions_doc", "svc_host.http.app"): "the permissions document lists every plugin's routes",
    ("folder_plugins", "svc_host.live_state"): "the folder plugins' states go into the live-state file",
}


def host_imports(folder: str) -> list[tuple[str, str, str]]:
    """(plugin folder, host module, file:line) of every host import under ``folder``."""
    found = []
    for path in sorted((REPO / folder).rglob("*.py")):
        parts = path.relative_to(REPO / folder).parts
        if {"build", "dist"} & set(parts):  # pip's copies of an example it built (not the source)
            continue
        owner = parts[0]
        for line, module in imported_modules(path):
            if module == "svc_host" or module.startswith("svc_host."):
                found.append((owner, module, f"{path.relative_to(REPO)}:{line}"))
    return found


def in_kit(module: str) -> bool:
    return module == PUBLIC_HOST_KIT or module.startswith(PUBLIC_HOST_KIT + ".")


@pytest.mark.parametrize("folder", ["builtin_plugins", "examples"])
def test_plugins_import_only_the_public_host_kit(folder):
    """A builtin or the third-party example imports the contract and the public host kit; any
    other host module is the host's own business (it may change), except the few host-side
    builtins listed with why."""
    outside = [(owner, module, place) for owner, module, place in host_imports(folder)
               if not in_kit(module) and (owner, module.removesuffix(".__version__")) not in KNOWN_HOST_INTERNALS]
    assert outside == [], f"{folder} imports host modules outside the public host kit: {outside}"


def test_the_known_host_internals_are_still_used():
    used = {(owner, module.removesuffix(".__version__")) for owner, module, _place in host_imports("builtin_plugins")}
    assert set(KNOWN_HOST_INTERNALS) <= used, set(KNOWN_HOST_INTERNALS) - used


def test_the_public_host_kit_is_documented():
    text = (REPO / "docs" / "hooks.md").read_text()
    section = text[text.index("### The public host kit"):]
    kit = REPO / "svc_host" / "kit"
    modules = sorted(path.stem if path.is_file() else path.name for path in kit.iterdir()
                     if path.suffix == ".py" and path.stem != "__init__" or (path / "__init__.py").is_file())
    assert modules
    for module in modules:
        assert f"`{PUBLIC_HOST_KIT}.{module}`" in section, module


def test_a_plugin_importing_a_host_internal_is_found(tmp_path, monkeypatch):
    plugin = tmp_path / "builtin_plugins" / "sneaky"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text("from svc_host.host import build_host\nfrom svc_host.kit.rest import x\n"
                                        "from svc_host.rest.rows import y\nfrom svc_host import kit\n"
                                        "import svc_host.kitchen\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert [(m, p) for _o, m, p in host_imports("builtin_plugins") if not in_kit(m)] == \
        [("svc_host.host", "builtin_plugins/sneaky/__init__.py:1"), ("svc_host.rest.rows", "builtin_plugins/sneaky/__init__.py:3"),
         ("svc_host", "builtin_plugins/sneaky/__init__.py:4"), ("svc_host.kitchen", "builtin_plugins/sneaky/__init__.py:5")]
