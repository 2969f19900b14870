"""The role table against CONTRACT's floors, every route walked with every role, and the generated doc."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hookspecs import AUTHENTICATED, PUBLIC, Permission, hookimpl
from hookspecs.permissions import INTERESTS_READ, declare
from svc_host import permissions as perms
from svc_host.config import load_settings
from svc_host.host import build_host
from svc_display.testing import issue_key
from svc_display.testing.clients import ApiClient as Api
from tests import REPO

DOC = REPO / "docs" / "permissions.md"


# CONTRACT "Permissions": every permission the builtin plugins declare and the roles (besides
# admin, which holds them all) that hold it. The builtins contribute these through
# register_permissions; this table is the floor the contract fixes, so it is written out.
CONTRACT_FLOORS = {
    "telemetry.read": {"operator", "power_viewer", "viewer"},
    "navigation.control": {"operator", "power_viewer"},
    "content.catalog_read": {"operator", "power_viewer"},
    "interests.read": {"operator", "power_viewer"},
    "interests.write": {"operator"},
    "screens.write": {"operator"},
    "ticker.write": {"operator"},
    "overlays.write": {"operator"},
    "alerts.write": {"operator"},
    "settings.write": {"operator"},
    "integrations.read": {"operator"},
    "integrations.write": {"operator"},
    "curator.write": {"operator"},
    "runtime.signals_write": {"operator"},
    "display.power": {"operator"},
    "content.moderate": set(),
    "adoption.admin": set(),
    "users.admin": set(),
    "display.maintenance": set(),
}


@pytest.fixture
def table(host):
    return host.registries.permissions


def test_the_builtins_declare_exactly_the_contract_floors(table):
    declared = {name: set(permission.roles) for name, permission in table.permissions.items()}
    assert declared == CONTRACT_FLOORS
    for role in ("operator", "power_viewer", "viewer"):
        assert set(table.for_role(role)) == {name for name, roles in CONTRACT_FLOORS.items() if role in roles}


def test_viewer_holds_telemetry_read_only(table):
    assert table.for_role("viewer") == ["telemetry.read"]


def test_power_viewer_adds_exactly_the_named_permissions(table):
    assert set(table.for_role("power_viewer")) == {"telemetry.read", "navigation.control",
                                                   "content.catalog_read", "interests.read"}


def test_operator_writes_configuration_but_not_the_admin_only_areas(table):
    held = set(table.for_role("operator"))
    assert set(table.for_role("power_viewer")) <= held
    assert {"screens.write", "ticker.write", "overlays.write", "alerts.write", "integrations.read",
            "integrations.write", "interests.read", "interests.write", "curator.write"} <= held
    assert not held & {"content.moderate", "display.maintenance", "adoption.admin", "users.admin"}


def test_admin_holds_every_permission(table):
    assert set(table.for_role("admin")) == set(table.permissions) == set(CONTRACT_FLOORS)


def test_each_permission_is_declared_by_the_plugins_that_use_it(host):
    """Every route's permission is declared by the plugin serving the route (as a third party's is)."""
    declarers = host.registries.permission_declarers
    for plugin, route in host.routes:
        for operation in route.operations.values():
            if operation.permission not in (PUBLIC, AUTHENTICATED):
                assert plugin in declarers[operation.permission], (plugin, route.path, operation.permission)
    assert perms.ROLES == ("admin", "operator", "power_viewer", "viewer")
    assert not [name for name in vars(perms) if name.isupper() and name != "ROLES"]  # the host names none


def test_a_shared_permission_declared_again_merges_and_a_different_one_is_refused(make_host, caplog):
    class Same:
        @hookimpl
        def register_permissions(self):
            return declare(INTERESTS_READ)

    class Widening:
        @hookimpl
        def register_permissions(self):
            return [Permission(INTERESTS_READ, "read interests", ("viewer", "power_viewer", "operator"))]

    host = make_host(plugins=[("same", Same())])
    assert "same" in host.registries.permission_declarers[INTERESTS_READ]
    assert not host.registries.permissions.role_has("viewer", INTERESTS_READ)
    host = make_host(plugins=[("widening", Widening())])
    assert "widening" not in host.plugins.info
    assert not host.registries.permissions.role_has("viewer", INTERESTS_READ)
    messages = [r.getMessage() for r in caplog.records]
    assert any("'widening'" in m and "declared differently" in m for m in messages)


def _fill(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "walk-param", template)


# Documented 503 answers of features that a headless test host does not run.
UNAVAILABLE_CODES = {"navigation_unavailable", "live_preview_unavailable", "adoption_unavailable"}


def test_every_route_answers_each_role_as_the_table_says(host):
    """A route whose permission is wrong, or missing from the table, fails here."""
    api = Api(host)
    keys = {role: issue_key(host, role, f"walker-{role}") for role in perms.ROLES}
    table = host.registries.permissions
    assert host.operations, "no routes were registered"
    failures = []
    for (template, method), operation in sorted(host.operations.items()):
        path = _fill(template)
        kwargs = {"json": {}} if method in ("POST", "PUT", "PATCH") else {}
        callers = [(None, "")] + [(role, keys[role]) for role in perms.ROLES]
        for role, key in callers:
            answer = api.request(method, path, key=key, **kwargs)
            status = answer.status_code
            if status == 503 and answer.json.get("code") in UNAVAILABLE_CODES:
                status = 200  # past auth, the feature is off in this headless host: allowed
            if operation.permission == PUBLIC:
                expected = "allowed"
            elif role is None:
                expected = 401
            elif operation.permission == AUTHENTICATED or table.role_has(role, operation.permission):
                expected = "allowed"
            else:
                expected = 403
            ok = status not in (401, 403) if expected == "allowed" else status == expected
            if not ok or status >= 500:
                failures.append(f"{method} {template} as {role or 'anonymous'}: {status}, expected {expected}")
    assert not failures, "\n".join(failures)
    # the walk left every key working
    for key in keys.values():
        assert api.get("/v1/adoption/session", key=key).status_code == 200


def test_every_route_names_a_known_permission(api):
    host = api.host
    assert host.operations
    known = set(host.registries.permissions.permissions) | {PUBLIC, AUTHENTICATED}
    unknown = {f"{m} {p}": op.permission for (p, m), op in host.operations.items() if op.permission not in known}
    assert not unknown


def test_only_the_spec_public_routes_are_public(api):
    host = api.host
    public = sorted(f"{m} {p}" for (p, m), op in host.operations.items() if op.permission == PUBLIC)
    assert public == ["GET /v1/health", "GET /v1/openapi.json", "POST /v1/adoption/confirm",
                      "POST /v1/adoption/request", "POST /v1/auth/login"]


def _builtin_host(tmp_path: Path):
    settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "doc-data"), "SVC_DISPLAY_HEADLESS": "1"})
    return build_host(settings)


def test_committed_permissions_doc_matches_the_generator(tmp_path):
    from builtin_plugins.permissions_doc.generator import render
    from svc_host.http.app import create_app

    host = _builtin_host(tmp_path)
    try:
        create_app(host)
        generated = render(host)
    finally:
        host.close()
    assert DOC.read_text() == generated, (
        "docs/permissions.md is out of date: run `svc-display permissions doc --output docs/permissions.md`")
    for (path, method) in host.operations:
        assert f"| {method} | `{path}` |" in generated


def test_doc_command_prints_and_checks(tmp_path):
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "cli-data"), "SVC_DISPLAY_HEADLESS": "1",
           "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "svc_host", "permissions", "doc"], env=env, capture_output=True,
                         text=True, timeout=120, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert run.stdout == DOC.read_text()
    check = subprocess.run([sys.executable, "-m", "svc_host", "permissions", "doc", "--check", str(DOC)], env=env,
                           capture_output=True, text=True, timeout=120, cwd=REPO)
    assert check.returncode == 0, check.stderr
    stale = tmp_path / "stale.md"
    stale.write_text("# old\n")
    outdated = subprocess.run([sys.executable, "-m", "svc_host", "permissions", "doc", "--check", str(stale)],
                              env=env, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert outdated.returncode == 1 and "out of date" in outdated.stderr
