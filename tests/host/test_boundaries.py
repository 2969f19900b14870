"""Declared dependencies between builtin packages (Home Assistant's hassfest, with ``ast``).

Every package under ``builtin_plugins/`` is a plugin (an entry point: no shared grab-bag
package) and may import the contract (``hookspecs``), the host (``svc_host``) and itself;
any other builtin package it imports must be listed in its ``REQUIRES`` tuple (read from the
source, nothing imported), the declarations must name real packages and form no cycle, and
nothing under ``builtin_plugins/``, ``svc_display/`` or ``examples/`` imports the test suite;
``svc_display/`` (the plugin authors' kit) and ``examples/`` import no builtin plugin at all.
"""
import ast
import json
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


# (file, imported package) still to be replaced, each with why.
KNOWN_HOST_IMPORTS = {
    ("svc_host/cli.py", "svc_display"): "the new-plugin command's scaffold lives in the authors' kit",
}


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
