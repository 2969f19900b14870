"""Property-based run over the trust routes: schema-valid requests are accepted, answers match the schemas."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from pony import orm

from builtin_plugins.clients.keys import issue_client
from svc_host.config import load_settings
from svc_host.host import build_host
from svc_host.http.app import create_app

TRUST_PATHS = ("/v1/adoption/", "/v1/auth/", "/v1/users/")


@pytest.fixture(scope="module")
def trust_app(tmp_path_factory):
    data = tmp_path_factory.mktemp("fuzz") / "data"
    host = build_host(load_settings({"SVC_DISPLAY_DATA_DIR": str(data), "SVC_DISPLAY_HEADLESS": "1",
                                     "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0"}))
    app = create_app(host)
    with orm.db_session:
        key = issue_client(host, "fuzz-admin", "admin").api_key
    yield app, key
    host.close()


def test_trust_routes_honour_their_schemas(trust_app):
    app, key = trust_app
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", app).include(
        path_regex="^(" + "|".join(TRUST_PATHS) + ")")
    # The host refuses NUL in any request text with 400 validation_failed (docs/architecture.md),
    # which the OpenAPI string schemas cannot express: generate only storable text here.
    schema.config.generation.update(allow_x00=False)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9

    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case):
            if case.path == "/v1/adoption/clients/{id}" and case.method == "DELETE":
                case.path_parameters = {"id": "0" * 32}  # never revoke the key the run itself uses
            case.call_and_validate(headers={"Authorization": f"Bearer {key}"})

        run()
