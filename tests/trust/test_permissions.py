"""The role table against CONTRACT's floors, every route walked with every role, and the generated doc."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hookspecs import AUTHENTICATED, PUBLIC
from svc_host import permissions as perms
from svc_host.config import load_settings
from svc_host.host import build_host
from tests.conftest import REPO, Api, issue_key

DOC = REPO / "docs" / "permissions.md"


@pytest.fixture
def table(host):
    return host.registries.permissions


def test_viewer_holds_telemetry_read_only(table):
    assert table.for_role("viewer") == [perms.TELEMETRY_READ]


def test_power_viewer_adds_exactly_the_named_permissions(table):
    assert set(table.for_role("power_viewer")) == {perms.TELEMETRY_READ, perms.NAVIGATION_CONTROL,
                                                   perms.CONTENT_CATALOG_READ, perms.INTERESTS_READ}


def test_operator_writes_configuration_but_not_the_admin_only_areas(table):
    held = set(table.for_role("operator"))
    assert set(table.for_role("power_viewer")) <= held
    assert {perms.SCREENS_WRITE, perms.TICKER_WRITE, perms.OVERLAYS_WRITE, perms.ALERTS_WRITE,
            perms.INTEGRATIONS_READ, perms.INTEGRATIONS_WRITE, perms.INTERESTS_READ, perms.INTERESTS_WRITE,
            perms.CURATOR_WRITE} <= held
    assert not held & {perms.CONTENT_MODERATE, perms.DISPLAY_MAINTENANCE, perms.ADOPTION_ADMIN, perms.USERS_ADMIN}


def test_admin_holds_every_permission(table):
    every = {value for name, value in vars(perms).items() if name.isupper() and isinstance(value, str)
             and "." in value}
    assert every <= set(table.for_role("admin"))
    assert set(table.for_role("admin")) == set(table.permissions)


def test_every_permission_constant_is_in_the_table():
    constants = {value for name, value in vars(perms).items() if name.isupper() and isinstance(value, str)
                 and "." in value}
    assert constants == {p.name for p in perms.BUILTIN_PERMISSIONS}


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
